#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate the profile module's wrappers for the simple MPI operations.

Usage: gen_profile.py PREPROCESSED_MPI_H OUT_DIR

Each operation below becomes an MPI_X wrapper that times its pass-down (MPILENS_DOWN(X), lens_down.h) and adds one call to the
(communicator, operation, size bucket) cell of the calling rank. Arguments are renamed
a0, a1, ... by position (headers disagree on names; ROMIO's have none), so the spec
refers to them by position. Operations missing from the installed mpi.h (MPI-4 ones on
Open MPI 4.1) are skipped; the operation table keeps them so ids are stable. Wait/Test,
communicator/window/file creation, Init and Finalize are written by hand (prof_*.c).

Operation ids 0-75 follow mpisee's order, so its analysis script reads our database.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'gen'))
from mpi_classes import classify, module_should_see  # noqa: E402
from parse_mpi_h import parse  # noqa: E402

B = 'prof_bytes(%s, %s)'
INPLACE = '(a0 == MPI_IN_PLACE ? prof_bytes(%s, %s) : prof_bytes(%s, %s))'

# name, kind, record expression, bytes expression, flags ('v': [v,w] first bucket;
# 'req:N': argument N is the MPI_Request* of a non-blocking call; 'persist:N': persistent)
P2P_SEND = lambda req=None: ('p2p', 'prof_comm(a5)', B % ('a1', 'a2'), req)
OPS = [
    ('Send',) + P2P_SEND(),
    ('Recv', 'p2p', 'prof_comm(a5)', 'prof_received(a6, a1, a2)', None),
    ('Isend',) + P2P_SEND('req:6'),
    ('Irecv', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'req:6'),
    ('Sendrecv', 'p2p', 'prof_comm(a10)', B % ('a1', 'a2'), None),
    ('Isendrecv', 'p2p', 'prof_comm(a10)', B % ('a1', 'a2'), 'req:11'),
    ('Ssend',) + P2P_SEND(),
    ('Issend',) + P2P_SEND('req:6'),
    ('Rsend',) + P2P_SEND(),
    ('Irsend',) + P2P_SEND('req:6'),
    ('Bsend',) + P2P_SEND(),
    ('Ibsend',) + P2P_SEND('req:6'),
    ('Waitall', 'p2p', None, None, 'hand'),
    ('Wait', 'p2p', None, None, 'hand'),
    ('Waitany', 'p2p', None, None, 'hand'),
    ('Test', 'p2p', None, None, 'hand'),
    ('Testany', 'p2p', None, None, 'hand'),
    ('Testall', 'p2p', None, None, 'hand'),
    ('Put', 'rma', 'prof_win(a7)', B % ('a1', 'a2'), None),
    ('Rput', 'rma', 'prof_win(a7)', B % ('a1', 'a2'), 'req:8'),
    ('Get', 'rma', 'prof_win(a7)', B % ('a1', 'a2'), None),
    ('Rget', 'rma', 'prof_win(a7)', B % ('a1', 'a2'), 'req:8'),
    ('Accumulate', 'rma', 'prof_win(a8)', B % ('a1', 'a2'), None),
    ('Raccumulate', 'rma', 'prof_win(a8)', B % ('a1', 'a2'), 'req:9'),
    ('Win_fence', 'rma', 'prof_win(a1)', '0', None),
    ('Win_start', 'rma', 'prof_win(a2)', '0', None),
    ('Win_complete', 'rma', 'prof_win(a0)', '0', None),
    ('Win_post', 'rma', 'prof_win(a2)', '0', None),
    ('Win_wait', 'rma', 'prof_win(a0)', '0', None),
    ('Win_test', 'rma', 'prof_win(a0)', '0', None),
    ('Bcast', 'coll', 'prof_comm(a4)', B % ('a1', 'a2'), None),
    ('Barrier', 'coll', 'prof_comm(a0)', '0', None),
    ('Allreduce', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), None),
    ('Allgather', 'coll', 'prof_comm(a6)', INPLACE % ('a4', 'a5', 'a1', 'a2'), None),
    ('Allgatherv', 'coll', 'prof_comm(a7)', '(a0 == MPI_IN_PLACE ? prof_bytes(a4[prof_rank(a7)], a6) : prof_bytes(a1, a2))', 'v'),
    ('Alltoall', 'coll', 'prof_comm(a6)', INPLACE % ('a4', 'a5', 'a1', 'a2'), None),
    ('Alltoallv', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? prof_sum_counts(a5, a7, prof_size(a8)) : prof_sum_counts(a1, a3, prof_size(a8)))', 'v'),
    ('Alltoallw', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? prof_sum_w(a5, a7, prof_size(a8)) : prof_sum_w(a1, a3, prof_size(a8)))', 'v'),
    ('Reduce', 'coll', 'prof_comm(a6)', B % ('a2', 'a3'), None),
    ('Gather', 'coll', 'prof_comm(a7)', INPLACE % ('a4', 'a5', 'a1', 'a2'), None),
    ('Gatherv', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? 0 : prof_bytes(a1, a2))', 'v'),
    ('Scan', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), None),
    ('Exscan', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), None),
    ('Scatter', 'coll', 'prof_comm(a7)', '(a3 == MPI_IN_PLACE ? prof_bytes(a1, a2) : prof_bytes(a4, a5))', None),
    ('Scatterv', 'coll', 'prof_comm(a8)', '(prof_rank(a8) == a7 ? prof_sum_counts(a1, a3, prof_size(a8)) : prof_bytes(a5, a6))', 'v'),
    ('Reduce_scatter', 'coll', 'prof_comm(a5)', 'prof_sum_counts(a2, a3, prof_size(a5))', 'v'),
    ('Reduce_scatter_block', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), None),
    ('Iallreduce', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), 'req:6'),
    ('Ibcast', 'coll', 'prof_comm(a4)', B % ('a1', 'a2'), 'req:5'),
    ('Ialltoall', 'coll', 'prof_comm(a6)', INPLACE % ('a4', 'a5', 'a1', 'a2'), 'req:7'),
    ('Iscatter', 'coll', 'prof_comm(a7)', '(a3 == MPI_IN_PLACE ? prof_bytes(a1, a2) : prof_bytes(a4, a5))', 'req:8'),
    ('Ibarrier', 'coll', 'prof_comm(a0)', '0', 'req:1'),
    ('Iallgather', 'coll', 'prof_comm(a6)', INPLACE % ('a4', 'a5', 'a1', 'a2'), 'req:7'),
    ('Iallgatherv', 'coll', 'prof_comm(a7)', '(a0 == MPI_IN_PLACE ? prof_bytes(a4[prof_rank(a7)], a6) : prof_bytes(a1, a2))', 'v,req:8'),
    ('Ialltoallv', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? prof_sum_counts(a5, a7, prof_size(a8)) : prof_sum_counts(a1, a3, prof_size(a8)))', 'v,req:9'),
    ('Ialltoallw', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? prof_sum_w(a5, a7, prof_size(a8)) : prof_sum_w(a1, a3, prof_size(a8)))', 'v,req:9'),
    ('Ireduce', 'coll', 'prof_comm(a6)', B % ('a2', 'a3'), 'req:7'),
    ('Igather', 'coll', 'prof_comm(a7)', INPLACE % ('a4', 'a5', 'a1', 'a2'), 'req:8'),
    ('Igatherv', 'coll', 'prof_comm(a8)', '(a0 == MPI_IN_PLACE ? 0 : prof_bytes(a1, a2))', 'v,req:9'),
    ('Iscan', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), 'req:6'),
    ('Iexscan', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), 'req:6'),
    ('Iscatterv', 'coll', 'prof_comm(a8)', '(prof_rank(a8) == a7 ? prof_sum_counts(a1, a3, prof_size(a8)) : prof_bytes(a5, a6))', 'v,req:9'),
    ('Ireduce_scatter', 'coll', 'prof_comm(a5)', 'prof_sum_counts(a2, a3, prof_size(a5))', 'v,req:6'),
    ('Ireduce_scatter_block', 'coll', 'prof_comm(a5)', B % ('a2', 'a3'), 'req:6'),
    ('Neighbor_allgather', 'coll', 'prof_comm(a6)', B % ('a1', 'a2'), None),
    ('Neighbor_allgatherv', 'coll', 'prof_comm(a7)', B % ('a1', 'a2'), 'v'),
    ('Neighbor_alltoall', 'coll', 'prof_comm(a6)', B % ('a1', 'a2'), None),
    ('Neighbor_alltoallv', 'coll', 'prof_comm(a8)', 'prof_sum_counts(a1, a3, prof_outdegree(a8))', 'v'),
    ('Neighbor_alltoallw', 'coll', 'prof_comm(a8)', 'prof_sum_w(a1, a3, prof_outdegree(a8))', 'v'),
    ('Ineighbor_allgather', 'coll', 'prof_comm(a6)', B % ('a1', 'a2'), 'req:7'),
    ('Ineighbor_allgatherv', 'coll', 'prof_comm(a7)', B % ('a1', 'a2'), 'v,req:8'),
    ('Ineighbor_alltoall', 'coll', 'prof_comm(a6)', B % ('a1', 'a2'), 'req:7'),
    ('Ineighbor_alltoallv', 'coll', 'prof_comm(a8)', 'prof_sum_counts(a1, a3, prof_outdegree(a8))', 'v,req:9'),
    ('Ineighbor_alltoallw', 'coll', 'prof_comm(a8)', 'prof_sum_w(a1, a3, prof_outdegree(a8))', 'v,req:9'),
    ('Init', 'coll', None, None, 'hand'),
    ('Init_thread', 'coll', None, None, 'hand'),
    # mpilens additions (ids 76 and up)
    ('Waitsome', 'p2p', None, None, 'hand'),
    ('Testsome', 'p2p', None, None, 'hand'),
    ('Probe', 'p2p', 'prof_comm(a2)', '0', None),
    ('Iprobe', 'p2p', 'prof_comm(a2)', '0', None),
    ('Mprobe', 'p2p', 'prof_comm(a2)', '0', None),
    ('Improbe', 'p2p', 'prof_comm(a2)', '0', None),
    ('Mrecv', 'p2p', 'prof_mixed()', 'prof_received(a4, a1, a2)', None),
    ('Sendrecv_replace', 'p2p', 'prof_comm(a7)', B % ('a1', 'a2'), None),
    ('Send_init', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'persist:6:Send_persistent'),
    ('Recv_init', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'persist:6:Recv_persistent'),
    ('Ssend_init', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'persist:6:Ssend_persistent'),
    ('Rsend_init', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'persist:6:Rsend_persistent'),
    ('Bsend_init', 'p2p', 'prof_comm(a5)', B % ('a1', 'a2'), 'persist:6:Bsend_persistent'),
    ('Start', 'p2p', None, None, 'hand'),
    ('Startall', 'p2p', None, None, 'hand'),
    ('Get_accumulate', 'rma', 'prof_win(a11)', B % ('a1', 'a2'), None),
    ('Fetch_and_op', 'rma', 'prof_win(a6)', 'prof_bytes(1, a2)', None),
    ('Compare_and_swap', 'rma', 'prof_win(a6)', 'prof_bytes(1, a3)', None),
    ('Win_lock', 'rma', 'prof_win(a3)', '0', None),
    ('Win_unlock', 'rma', 'prof_win(a1)', '0', None),
    ('Win_lock_all', 'rma', 'prof_win(a1)', '0', None),
    ('Win_unlock_all', 'rma', 'prof_win(a0)', '0', None),
    ('Win_flush', 'rma', 'prof_win(a1)', '0', None),
    ('Win_flush_all', 'rma', 'prof_win(a0)', '0', None),
    ('Win_flush_local', 'rma', 'prof_win(a1)', '0', None),
    ('Win_sync', 'rma', 'prof_win(a0)', '0', None),
    ('File_read', 'io', 'prof_file(a0)', B % ('a2', 'a3'), None),
    ('File_write', 'io', 'prof_file(a0)', B % ('a2', 'a3'), None),
    ('File_read_at', 'io', 'prof_file(a0)', B % ('a3', 'a4'), None),
    ('File_write_at', 'io', 'prof_file(a0)', B % ('a3', 'a4'), None),
    ('File_read_all', 'io', 'prof_file(a0)', B % ('a2', 'a3'), None),
    ('File_write_all', 'io', 'prof_file(a0)', B % ('a2', 'a3'), None),
    ('File_read_at_all', 'io', 'prof_file(a0)', B % ('a3', 'a4'), None),
    ('File_write_at_all', 'io', 'prof_file(a0)', B % ('a3', 'a4'), None),
    ('File_iread', 'io', 'prof_file(a0)', B % ('a2', 'a3'), 'req:4'),
    ('File_iwrite', 'io', 'prof_file(a0)', B % ('a2', 'a3'), 'req:4'),
    ('File_open', 'io', None, None, 'hand'),
    ('File_close', 'io', None, None, 'hand'),
    # issue 14: the rest of the classification (ids 142 and up)
    ('Isendrecv_replace', 'p2p', 'prof_comm(a7)', B % ('a1', 'a2'), 'req:8'),
    ('Imrecv', 'p2p', 'prof_mixed()', B % ('a1', 'a2'), 'req:4'),
    ('Psend_init', 'p2p', 'prof_comm(a6)', 'prof_bytes(a2, a3) * (uint64_t)a1',
     'persist:8:Send_partitioned'),
    ('Precv_init', 'p2p', 'prof_comm(a6)', 'prof_bytes(a2, a3) * (uint64_t)a1',
     'persist:8:Recv_partitioned'),
    ('Pready', 'p2p', 'prof_request_comm(a1)', '0', None),
    ('Pready_range', 'p2p', 'prof_request_comm(a2)', '0', None),
    ('Pready_list', 'p2p', 'prof_request_comm(a2)', '0', None),
    ('Parrived', 'p2p', 'prof_request_comm(a0)', '0', None),
    ('Rget_accumulate', 'rma', 'prof_win(a11)', B % ('a1', 'a2'), 'req:12'),
    ('Win_flush_local_all', 'rma', 'prof_win(a0)', '0', None),
] + [('File_%s' % name.replace('X', rw), 'io', 'prof_file(a0)', nbytes, flags)
     for rw in ('read', 'write')
     for name, nbytes, flags in (
         ('X_shared', B % ('a2', 'a3'), None), ('X_ordered', B % ('a2', 'a3'), None),
         ('iX_at', B % ('a3', 'a4'), 'req:5'), ('iX_at_all', B % ('a3', 'a4'), 'req:5'),
         ('iX_all', B % ('a2', 'a3'), 'req:4'), ('iX_shared', B % ('a2', 'a3'), 'req:4'),
         ('X_all_begin', B % ('a2', 'a3'), None), ('X_ordered_begin', B % ('a2', 'a3'), None),
         ('X_at_all_begin', B % ('a3', 'a4'), None), ('X_all_end', '0', None),
         ('X_ordered_end', '0', None), ('X_at_all_end', '0', None))]


def persistent_collectives(ops):
    """MPI 4's persistent collectives (NAME_init): counted like NAME when made, their
    bytes charged again at each start; the request follows the Info argument."""
    out = []
    for name, kind, rec, nbytes, flags in ops:
        if kind != 'coll' or rec is None or name.startswith('I'):
            continue
        req = int(rec[rec.index('(a') + 2:-1]) + 2
        fl = ','.join([f for f in (flags or '').split(',') if f] +
                      ['persist:%d:%s_persistent' % (req, name)])
        out.append((name + '_init', kind, rec, nbytes, fl))
    # what their starts count as (MPI_Start of the request): "Allreduce persistent", after
    # every other operation, so that the ids before stay as they were
    out += [(name[:-len('_init')] + '_persistent', kind, None, None, 'hand')
            for name, kind, _, _, _ in list(out)]
    return out


OPS += persistent_collectives(OPS)
# what the starts of persistent and partitioned point-to-point requests count as ("Send
# persistent", "Send partitioned": the request's bytes and communicator), after the rest
OPS += [(f.split(':')[2], kind, None, None, 'hand')
        for name, kind, rec, _, flags in list(OPS) if kind == 'p2p'
        for f in (flags or '').split(',') if f.startswith('persist:') and f.count(':') == 2]


def flags_of(spec):
    return (spec[4] or '').split(',')


def check_coverage(funcs):
    """Every function of the classification the profile should see has an operation."""
    named = {name for name, _, _, _, _ in OPS}
    for full, (fam, _, _, _, base) in sorted(classify(funcs).items()):
        if module_should_see('profile', fam) and base not in named:
            sys.exit('gen_profile: %s (%s in src/gen/mpi_classes.py) has no operation in OPS: '
                     'add one' % (full, fam))


def emit(ops_found, funcs):
    out = ['/* Generated by src/modules/profile/gen_profile.py: do not edit. */',
           '#include "prof.h"', '#include "lens_down.h"', '']
    for op_id, (name, kind, rec, nbytes, flags) in enumerate(OPS):
        fl = flags_of((name, kind, rec, nbytes, flags))
        if 'hand' in fl:
            continue
        for binding in (name, name + '_c'):
            if 'MPI_' + binding in funcs:
                out.append(emit_one(binding, funcs['MPI_' + binding], op_id, rec, nbytes, fl))
                ops_found.add(binding)
    return '\n'.join(out)


def fast_key(rec, nbytes):
    """How a call of this operation is recognised from its own arguments (prof.h, struct
    prof_last): (handle argument, count argument or None, datatype argument or None, status
    argument or None, guard or None); a status: a receive, whose bytes are read from it after
    the call; a guard: the condition under which count and datatype give the bytes (not in
    place), without which the call takes the general path.
    None: bytes depend on arrays or on MPI_IN_PLACE, so the operation keeps the general path."""
    m = re.fullmatch(r'prof_(?:comm|win|file)\((a\d+)\)', rec)
    handle = m.group(1) if m else ('0' if rec == 'prof_mixed()' else None)
    if handle is None:
        return None
    if nbytes == '0':
        return handle, None, None, None, None
    m = re.fullmatch(r'prof_bytes\((a\d+), (a\d+)\)', nbytes)
    if m:
        return handle, m.group(1), m.group(2), None, None
    m = re.fullmatch(r'prof_received\((a\d+), (a\d+), (a\d+)\)', nbytes)
    if m:
        return handle, m.group(2), m.group(3), m.group(1), None
    # in place or not: only a call that is not in place is keyed (its count and datatype)
    m = re.fullmatch(r'\((a\d+) == MPI_IN_PLACE \? prof_bytes\((a\d+), (a\d+)\) : '
                     r'prof_bytes\((a\d+), (a\d+)\)\)', nbytes)
    if m:
        return handle, m.group(4), m.group(5), None, '%s != MPI_IN_PLACE' % m.group(1)
    return None


def indent(text, by='    '):
    return ''.join(by + line + '\n' if line else '\n' for line in text.rstrip('\n').split('\n'))


def emit_one(name, func, op_id, rec, nbytes, fl):
    """The wrapper of one binding (MPI_X or its large-count MPI_X_c) of operation op_id.
    With a key (fast_key), a call like the one before (same return address, handle, count
    and datatype) adds itself to the operation's pending calls (prof.h) and does nothing
    else; any other takes prof_slow_X, the general path, which makes it the one to
    recognise."""
    ret, plist = func
    params = ', '.join('%s a%d%s' % (p[0], i, p[2]) for i, p in enumerate(plist))
    args = ', '.join('a%d' % i for i in range(len(plist)))
    vw = 1 if 'v' in fl else 0
    post = lambda rec_, bytes_, keyed=False: ''
    for f in fl:
        if f.startswith('req:') or f.startswith('persist:'):
            n, persist = f.split(':')[1], 1 if f.startswith('persist') else 0
            if f.count(':') == 2:  # its starts count as that operation (prof_req_start)
                persist = 'PROF_OP_%s + 2' % f.split(':')[2]
            post = lambda rec_, bytes_, keyed=False, n=n, persist=persist: (
                'if (rc_ == MPI_SUCCESS)\n    prof_request_remember%s(a%s, %s, %s, %s);\n'
                % ('_keyed' if keyed else '', n, rec_, bytes_, persist))
    key = fast_key(rec, nbytes)
    timed = lambda clock, down_args=args: ('uint64_t t0_ = %s();\n' % clock +
                           '%s rc_ = MPILENS_DOWN(%s)(%s);\n' % (ret, name, down_args) +
                           'uint64_t t1_ = %s();\n' % clock)
    if key is None:
        return ('%s MPI_%s(%s)\n{\n' % (ret, name, params) +
                '    if (!prof_on)\n        return MPILENS_DOWN(%s)(%s);\n' % (name, args) +
                '    void *site_ = prof_caller();\n' + indent(timed('prof_now')) +
                '    struct lens_comm *rec_ = %s;\n' % rec +
                '    uint64_t bytes_ = %s;\n' % nbytes +
                '    prof_record(%d, site_, rec_, bytes_, %d, t1_ - t0_);\n' % (op_id, vw) +
                indent(post('rec_', 'bytes_')) + '    return rc_;\n}\n')
    handle, count, dtype, status, guard = key
    match = ['l_->handle == (uintptr_t)%s' % handle] + ([guard] if guard else [])
    keyset = ['l_->handle = (uintptr_t)%s;' % handle]
    if count:
        match += ['l_->count == (int64_t)%s' % count, 'l_->type == (uintptr_t)%s' % dtype]
        keyset += ['l_->count = (int64_t)%s;' % count, 'l_->type = (uintptr_t)%s;' % dtype]
    if status:  # the key's bytes: the posted count's, or the ones got (see below)
        keyset += ['uint64_t posted_ = prof_bytes(%s, %s);' % (count, dtype),
                   'l_->posted_in_bucket = prof_in_bucket(l_, posted_);',
                   'prof_key_bytes(l_, l_->posted_in_bucket ? posted_ : bytes_);',
                   'l_->size_mask = prof_size_mask(%s);' % dtype]
    else:
        keyset.append('prof_key_bytes(l_, bytes_);')
    keyset += ['l_->ra = prof_key_to_set(ra_);', 'l_->keyed = 1;']
    if status:
        # A receive's key bytes are its posted bytes when they are in the bucket of the
        # cells (posted_in_bucket; always, for a key set with MPI_STATUS_IGNORE), else the
        # bytes that call got (prof_key_bytes). A keyed call that got the key's bytes adds
        # itself to the pending calls as it is; other bytes from the status, a whole number
        # of elements in the key's bucket, add their difference; anything else is recorded
        # the general way, with count and datatype from the key (equal to the call's: fewer
        # registers kept across the library call).
        other = ('prof_received_other(%d, l_, %s, l_->count, (MPI_Datatype)l_->type, t1_ - t0_);\n'
                 % (op_id, status))
        keyed_record = ('if (%s == MPI_STATUS_IGNORE) {\n' % status +
                        '    bytes_ = l_->bytes;\n'
                        '    if (LENS_LIKELY_PROF(l_->posted_in_bucket))\n'
                        '        prof_pend(l_, t1_ - t0_);\n'
                        '    else\n' + indent(other, '        ') +
                        '} else {\n'
                        '    bytes_ = lens_status_bytes(%s);\n' % status +
                        '    if (LENS_LIKELY_PROF(bytes_ == l_->bytes))\n'
                        '        prof_pend(l_, t1_ - t0_);\n'
                        '    else if (!(bytes_ & l_->size_mask) && prof_in_bucket(l_, bytes_))\n'
                        '        prof_pend_bytes(l_, bytes_, t1_ - t0_);\n'
                        '    else\n' + indent(other, '        ') +
                        '}\n')
    else:
        keyed_record = 'bytes_ = l_->bytes;\nprof_pend(l_, t1_ - t0_);\n'
    # The general path. A call site only a call to the core can name (Fortran bindings,
    # threads) has no key: such a call is recognised here, after its site is known.
    general = ('struct lens_comm *rec_;\nuint64_t bytes_;\n'
               'if (l_->keyed && l_->site == site_ && %s) {\n' % ' && '.join(match) +
               '    rec_ = l_->rec;\n' + indent(keyed_record) +
               '} else {\n' +
               '    rec_ = %s;\n' % rec +
               '    bytes_ = %s;\n' % nbytes +
               '    if (prof_record_cells(%d, site_, rec_, bytes_, %d, t1_ - t0_)%s) {\n'
               % (op_id, vw, ' && ' + guard if guard else '') +
               indent('\n'.join(keyset), '        ') + '    }\n}\n')
    # ra_ last: the wrapper's own arguments stay where they are for the call
    slow = ('static __attribute__((noinline)) %s prof_slow_%s(%s, void *ra_)\n{\n' % (ret, name, params) +
            '    if (!prof_on)\n        return MPILENS_DOWN(%s)(%s);\n' % (name, args) +
            '    void *site_ = prof_site_of(ra_);\n'
            '    struct prof_last *l_ = &prof_last[%d];\n' % op_id +
            indent(timed('prof_now')) + indent(general) + indent(post('rec_', 'bytes_')) +
            '    return rc_;\n}\n')
    # the fast path records as the slow path's keyed branch, bytes_ declared there
    fast_record = 'uint64_t bytes_;\n' + keyed_record if status else 'prof_pend(l_, t1_ - t0_);\n'
    # The argument in the third integer register (rdx on x86-64, which the time-stamp read
    # overwrites): when it is part of the key, it is passed down from the key (equal to it)
    # instead of being kept in another register across the read.
    from_key = {count: 'count', dtype: 'type'} if count else {}
    fast_args = ', '.join('(%s)((volatile struct prof_last *)l_)->%s' % (p[0], from_key['a2'])
                          if i == 2 and 'a2' in from_key else 'a%d' % i
                          for i, p in enumerate(plist))
    fast = ('%s MPI_%s(%s)\n{\n' % (ret, name, params) +
            '    void *ra_ = __builtin_return_address(0);\n'
            '    struct prof_last *l_ = &prof_last[%d];\n' % op_id +
            '    if (LENS_LIKELY_PROF(%s && prof_key_is(l_->ra, ra_))) {\n' % ' && '.join(reversed(match)) +
            indent(timed('prof_tick', fast_args) + fast_record + post('l_->rec', 'l_->bytes', True) + 'return rc_;\n',
                   '        ') +
            '    }\n'
            '    return prof_slow_%s(%s, ra_);\n}\n' % (name, args))
    return slow + fast


def main():
    with open(sys.argv[1]) as f:
        funcs = {name: (ret, plist) for ret, name, plist in parse(f.read())}
    check_coverage(funcs)
    found = set()
    body = emit(found, funcs)
    with open(os.path.join(sys.argv[2], 'prof_wrappers.c'), 'w') as out:
        out.write(body)
    with open(os.path.join(sys.argv[2], 'prof_ops.c'), 'w') as out:
        out.write('/* Generated by src/modules/profile/gen_profile.py: the operation table. */\n')
        out.write('#include "prof.h"\n\nconst int prof_op_count = %d;\n' % len(OPS))
        out.write('_Static_assert(%d <= PROF_MAX_OPS, "raise PROF_MAX_OPS in prof.h");\n' % len(OPS))
        out.write('const struct prof_op prof_ops[] = {\n')
        for name, kind, _, _, flags in OPS:
            shown = name.replace('_persistent', ' persistent').replace('_partitioned',
                                                                       ' partitioned')
            out.write('    {"%s", "%s", %d},\n' % (shown, kind, 1 if 'v' in (flags or '').split(',') else 0))
        out.write('};\n')
    with open(os.path.join(sys.argv[2], 'prof_op_ids.h'), 'w') as out:
        out.write('/* Generated by gen_profile.py: operation ids. */\n')
        for i, (name, _, _, _, _) in enumerate(OPS):
            out.write('#define PROF_OP_%s %d\n' % (name, i))
    print('gen_profile: %d wrappers, %d operations' % (len(found), len(OPS)))


if __name__ == '__main__':
    main()
