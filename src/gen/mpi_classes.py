#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One classification of the MPI functions that move data, for every module.

Each data-moving function of mpi.h belongs to one class: a family (what it moves and how:
point-to-point send, receive, probe, matched receive; a collective shape; a one-sided
transfer or synchronisation; a file read or write and its positioning), a signature shape
(the layout of its arguments, so a module refers to count, datatype, peer, communicator,
window or file by position) and a mode (B blocking, I nonblocking, P persistent, S split
collective begin, E split collective end). The large-count bindings of MPI 4 (NAME_c) are
in the class of NAME.

gen_classes.py turns the classification of the installed mpi.h into lens_classes.h,
X-macro lists by shape that the modules instantiate; tests/gen/test_classification.py
checks that nothing in mpi.h that moves data is left out and that each module wraps what
it should see (MODULE_FAMILIES). docs/coverage.md explains the families.
"""
import re

# Argument tokens of a shape. C: a count (int, or MPI_Count in a large-count binding),
# CA: an array of counts, D: an array of displacements (int or MPI_Aint), A: MPI_Aint.
TOKENS = {
    'B': {'void*'}, 'C': {'int', 'MPI_Count'}, 'CA': {'int*', 'MPI_Count*'},
    'D': {'int*', 'MPI_Aint*'}, 'A': {'MPI_Aint'}, 'T': {'MPI_Datatype'},
    'TA': {'MPI_Datatype*'}, 'i': {'int'}, 'ip': {'int*'}, 'Comm': {'MPI_Comm'},
    'Win': {'MPI_Win'}, 'File': {'MPI_File'}, 'Req': {'MPI_Request*'}, 'R': {'MPI_Request'},
    'St': {'MPI_Status*'}, 'Off': {'MPI_Offset'}, 'Op': {'MPI_Op'}, 'Info': {'MPI_Info'},
    'Msg': {'MPI_Message*'}, 'Group': {'MPI_Group'},
}

# Shape -> its arguments. Nonblocking collectives add Req, persistent ones Info and Req.
SHAPES = {
    'send': 'B C T i i Comm', 'isend': 'B C T i i Comm Req', 'recv': 'B C T i i Comm St',
    'irecv': 'B C T i i Comm Req',
    'sendrecv': 'B C T i i B C T i i Comm St', 'isendrecv': 'B C T i i B C T i i Comm Req',
    'sendrecv_replace': 'B C T i i i i Comm St', 'isendrecv_replace': 'B C T i i i i Comm Req',
    'probe': 'i i Comm St', 'iprobe': 'i i Comm ip St', 'mprobe': 'i i Comm Msg St',
    'improbe': 'i i Comm ip Msg St', 'mrecv': 'B C T Msg St', 'imrecv': 'B C T Msg Req',
    'psend_init': 'B i C T i i Comm Info Req', 'pready': 'i R', 'pready_range': 'i i R',
    'pready_list': 'i ip R', 'parrived': 'R i ip',
    'barrier': 'Comm', 'bcast': 'B C T i Comm', 'rooted': 'B C T B C T i Comm',
    'allgather': 'B C T B C T Comm', 'gatherv': 'B C T B CA D T i Comm',
    'scatterv': 'B CA D T B C T i Comm', 'allgatherv': 'B C T B CA D T Comm',
    'alltoallv': 'B CA D T B CA D T Comm', 'alltoallw': 'B CA D TA B CA D TA Comm',
    'reduce': 'B B C T Op i Comm', 'allreduce': 'B B C T Op Comm',
    'reduce_scatter': 'B B CA T Op Comm',
    'put': 'B C T i A C T Win', 'rput': 'B C T i A C T Win Req',
    'accumulate': 'B C T i A C T Op Win', 'raccumulate': 'B C T i A C T Op Win Req',
    'get_accumulate': 'B C T B C T i A C T Op Win',
    'rget_accumulate': 'B C T B C T i A C T Op Win Req',
    'fetch_and_op': 'B B T i A Op Win', 'compare_and_swap': 'B B B T i A Win',
    'win': 'Win', 'win_assert': 'i Win', 'win_group': 'Group i Win', 'win_test': 'Win ip',
    'win_lock': 'i i i Win', 'win_rank': 'i Win',
    'io': 'File B C T St', 'io_at': 'File Off B C T St', 'iio': 'File B C T Req',
    'iio_at': 'File Off B C T Req', 'io_begin': 'File B C T', 'io_at_begin': 'File Off B C T',
    'io_end': 'File B St',
}

COLL_SHAPES = {  # collective -> (shape, OTF2-like kind)
    'Barrier': 'barrier', 'Bcast': 'bcast', 'Gather': 'rooted', 'Scatter': 'rooted',
    'Allgather': 'allgather', 'Alltoall': 'allgather', 'Gatherv': 'gatherv',
    'Scatterv': 'scatterv', 'Allgatherv': 'allgatherv', 'Alltoallv': 'alltoallv',
    'Alltoallw': 'alltoallw', 'Reduce': 'reduce', 'Allreduce': 'allreduce',
    'Reduce_scatter': 'reduce_scatter', 'Reduce_scatter_block': 'allreduce',
    'Scan': 'allreduce', 'Exscan': 'allreduce', 'Neighbor_allgather': 'allgather',
    'Neighbor_alltoall': 'allgather', 'Neighbor_allgatherv': 'allgatherv',
    'Neighbor_alltoallv': 'alltoallv', 'Neighbor_alltoallw': 'alltoallw',
}
COLL_FAMILY = {
    'Barrier': 'coll.barrier', 'Bcast': 'coll.one_to_all', 'Scatter': 'coll.one_to_all',
    'Scatterv': 'coll.one_to_all', 'Gather': 'coll.all_to_one', 'Gatherv': 'coll.all_to_one',
    'Reduce': 'coll.all_to_one', 'Scan': 'coll.scan', 'Exscan': 'coll.scan',
}


def _classes():
    """(name, family, shape, mode, extra) for every data-moving function MPI 4.0 defines.
    extra: 'write' for file writes, the positioning for files, '' otherwise."""
    out = []
    add = lambda fam, shape, mode, names, extra='': out.extend(
        (n, fam, shape, mode, extra) for n in names.split())
    add('p2p.send', 'send', 'B', 'Send Ssend Bsend Rsend')
    add('p2p.send', 'isend', 'I', 'Isend Issend Ibsend Irsend')
    add('p2p.send', 'isend', 'P', 'Send_init Ssend_init Bsend_init Rsend_init')
    add('p2p.recv', 'recv', 'B', 'Recv')
    add('p2p.recv', 'irecv', 'I', 'Irecv')
    add('p2p.recv', 'irecv', 'P', 'Recv_init')
    add('p2p.sendrecv', 'sendrecv', 'B', 'Sendrecv')
    add('p2p.sendrecv', 'isendrecv', 'I', 'Isendrecv')
    add('p2p.sendrecv', 'sendrecv_replace', 'B', 'Sendrecv_replace')
    add('p2p.sendrecv', 'isendrecv_replace', 'I', 'Isendrecv_replace')
    for n in ('Probe', 'Iprobe', 'Mprobe', 'Improbe'):
        add('p2p.probe', n.lower(), 'B', n)
    add('p2p.mrecv', 'mrecv', 'B', 'Mrecv')
    add('p2p.mrecv', 'imrecv', 'I', 'Imrecv')
    add('p2p.partitioned.send', 'psend_init', 'P', 'Psend_init', 'send')
    add('p2p.partitioned.recv', 'psend_init', 'P', 'Precv_init')
    add('p2p.partitioned.sync', 'pready', 'B', 'Pready')
    add('p2p.partitioned.sync', 'pready_range', 'B', 'Pready_range')
    add('p2p.partitioned.sync', 'pready_list', 'B', 'Pready_list')
    add('p2p.partitioned.sync', 'parrived', 'B', 'Parrived')
    for c, shape in COLL_SHAPES.items():
        fam = COLL_FAMILY.get(c, 'coll.neighbor' if c.startswith('Neighbor') else 'coll.all_to_all')
        add(fam, shape, 'B', c)
        add(fam, shape, 'I', 'I' + c.lower())
        add(fam, shape, 'P', c + '_init')
    add('rma.put', 'put', 'B', 'Put')
    add('rma.put', 'rput', 'I', 'Rput')
    add('rma.get', 'put', 'B', 'Get')
    add('rma.get', 'rput', 'I', 'Rget')
    add('rma.accumulate', 'accumulate', 'B', 'Accumulate')
    add('rma.accumulate', 'raccumulate', 'I', 'Raccumulate')
    add('rma.atomic', 'get_accumulate', 'B', 'Get_accumulate')
    add('rma.atomic', 'rget_accumulate', 'I', 'Rget_accumulate')
    add('rma.atomic', 'fetch_and_op', 'B', 'Fetch_and_op')
    add('rma.atomic', 'compare_and_swap', 'B', 'Compare_and_swap')
    add('rma.sync.fence', 'win_assert', 'B', 'Win_fence')
    add('rma.sync.pscw', 'win_group', 'B', 'Win_post Win_start')
    add('rma.sync.pscw', 'win', 'B', 'Win_complete Win_wait')
    add('rma.sync.pscw', 'win_test', 'B', 'Win_test')
    add('rma.sync.lock', 'win_lock', 'B', 'Win_lock')
    add('rma.sync.lock', 'win_rank', 'B', 'Win_unlock Win_flush Win_flush_local')
    add('rma.sync.lock', 'win_assert', 'B', 'Win_lock_all')
    add('rma.sync.lock', 'win', 'B', 'Win_unlock_all Win_flush_all Win_flush_local_all Win_sync')
    for rw in ('read', 'write'):
        w = 'write' if rw == 'write' else 'read'
        add('io.individual', 'io', 'B', 'File_%s File_%s_all' % (rw, rw), w)
        add('io.individual', 'iio', 'I', 'File_i%s File_i%s_all' % (rw, rw), w)
        add('io.individual', 'io_begin', 'S', 'File_%s_all_begin' % rw, w)
        add('io.individual', 'io_end', 'E', 'File_%s_all_end' % rw, w)
        add('io.explicit', 'io_at', 'B', 'File_%s_at File_%s_at_all' % (rw, rw), w)
        add('io.explicit', 'iio_at', 'I', 'File_i%s_at File_i%s_at_all' % (rw, rw), w)
        add('io.explicit', 'io_at_begin', 'S', 'File_%s_at_all_begin' % rw, w)
        add('io.explicit', 'io_end', 'E', 'File_%s_at_all_end' % rw, w)
        add('io.shared', 'io', 'B', 'File_%s_shared File_%s_ordered' % (rw, rw), w)
        add('io.shared', 'iio', 'I', 'File_i%s_shared' % rw, w)
        add('io.shared', 'io_begin', 'S', 'File_%s_ordered_begin' % rw, w)
        add('io.shared', 'io_end', 'E', 'File_%s_ordered_end' % rw, w)
    return out


CLASSES = _classes()

# Request completion and persistent starts: every module that keeps requests wraps them by
# hand (their arrays are not data); listed so the test knows they are seen.
COMPLETION = ('Wait Waitall Waitany Waitsome Test Testall Testany Testsome Start Startall '
              'Request_free').split()

# Functions with a buffer, a datatype and a communicator that move nothing between
# processes: the test's rule for "moves data" would take them otherwise.
LOCAL = set('Pack Unpack Pack_external Unpack_external Reduce_local Buffer_attach '
            'Buffer_detach Get_count Get_elements Get_elements_x Status_set_elements '
            'Status_set_elements_x'.split())

# Which families each module must wrap (a family prefix matches its sub-families).
MODULE_FAMILIES = {
    'profile': ('p2p', 'coll', 'rma', 'io'),
    'monitor': ('p2p.send', 'p2p.sendrecv', 'p2p.partitioned.send', 'coll', 'rma.put', 'rma.get',
                'rma.accumulate', 'rma.atomic', 'io'),
    'trace': ('p2p', 'coll', 'rma', 'io'),
}


def normalize(ptype, suffix):
    """A parameter's type without const and spaces; arrays as pointers."""
    t = re.sub(r'\bconst\b', '', ptype).replace(' ', '')
    return t + '*' * suffix.count('[')


def shape_tokens(family, shape, mode):
    """The arguments of a class: a collective's shape plus Req (nonblocking) or Info Req
    (persistent)."""
    extra = {'I': ' Req', 'P': ' Info Req'}.get(mode, '') if family.startswith('coll') else ''
    return (SHAPES[shape] + extra).split()


def matches(plist, toks):
    if len(toks) != len(plist):
        return False
    return all(normalize(p[0], p[2]) in TOKENS[t] for t, p in zip(toks, plist))


def classify(funcs):
    """funcs: {MPI_name: (ret, plist)} -> {MPI_name: (family, shape, mode, extra, base)} for
    the classified functions present, large-count bindings included. Raises ValueError
    when a function's arguments do not have its class's shape."""
    out = {}
    for name, fam, shape, mode, extra in CLASSES:
        for full in ('MPI_' + name, 'MPI_' + name + '_c'):
            if full not in funcs:
                continue
            toks = shape_tokens(fam, shape, mode)
            if not matches(funcs[full][1], toks):
                raise ValueError('%s: its arguments are not those of shape %s (%s)' %
                                 (full, shape, ' '.join(toks)))
            out[full] = (fam, shape, mode, extra, name)
    return out


def moves_data(plist):
    """The test's independent rule: a buffer and a datatype with a communicator, window or
    file, or a matched message."""
    types = [normalize(p[0], p[2]) for p in plist]
    has = lambda *ts: any(t in types for t in ts)
    return (has('void*') and has('MPI_Datatype', 'MPI_Datatype*') and
            has('MPI_Comm', 'MPI_Win', 'MPI_File', 'MPI_Message*')) or has('MPI_Message*')


def module_should_see(module, family):
    return any(family == f or family.startswith(f + '.') for f in MODULE_FAMILIES[module])
