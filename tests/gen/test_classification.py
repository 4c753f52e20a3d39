"""test_classification.py: the classification of src/gen/mpi_classes.py against the mpi.h
this build uses (MPI_H, preprocessed) and the modules built from it (MODULE_DIR).

Fails when a function of mpi.h that moves data (a buffer and a datatype with a
communicator, window or file, or a matched message: a rule that does not look at names)
is neither classified nor listed as local, when a classified function's arguments do not
have its shape, or when a module does not export a wrapper for a function it should see.
"""
import os
import subprocess
import unittest

from mpi_classes import (CLASSES, LOCAL, MODULE_FAMILIES, SHAPES, classify, matches,
                         module_should_see, moves_data, shape_tokens)
from parse_mpi_h import parse

# The modes a module need not wrap (it counts a split collective at its begin).
MODES_LEFT = {'monitor': {'E'}}


def header_functions():
    with open(os.environ['MPI_H']) as f:
        return {name: (ret, plist) for ret, name, plist in parse(f.read())}


def exported(module):
    path = os.path.join(os.environ['MODULE_DIR'], module + '.so')
    if not os.path.exists(path):
        return None
    out = subprocess.run(['nm', '-D', '--defined-only', path], capture_output=True, text=True,
                         check=True).stdout
    # T: a definition; W: the trace's weak region-only ones (trc_regions.c)
    return {line.split()[-1] for line in out.splitlines()
            if ' T MPI_' in line or ' W MPI_' in line}


class ClassificationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.funcs = header_functions()
        cls.classes = classify(cls.funcs)

    def test_every_data_moving_function_is_classified(self):
        left = sorted(n for n, (_, plist) in self.funcs.items()
                      if moves_data(plist) and n not in self.classes
                      and n[4:].removesuffix('_c') not in LOCAL)
        self.assertEqual(left, [], 'move data but have no class in src/gen/mpi_classes.py')

    def test_the_rule_sees_the_obvious_ones(self):
        for name in ('MPI_Send', 'MPI_Recv', 'MPI_Bcast', 'MPI_Put', 'MPI_File_write_at',
                     'MPI_Mrecv', 'MPI_Alltoallw'):
            self.assertTrue(moves_data(self.funcs[name][1]), name)
            self.assertIn(name, self.classes)

    def test_the_mpi_3_families_are_all_present(self):
        wanted = [n for n, fam, _, _, _ in CLASSES
                  if not (n.endswith('_init') and fam.startswith('coll')) and
                  not n.startswith(('Isendrecv', 'P')) or n in ('Put', 'Probe')]
        absent = sorted(n for n in wanted if 'MPI_' + n not in self.funcs)
        self.assertEqual(absent, [], 'MPI 3.1 functions the installed mpi.h lacks')

    def test_shapes(self):
        self.assertTrue(matches(self.funcs['MPI_Send'][1], SHAPES['send'].split()))
        self.assertFalse(matches(self.funcs['MPI_Send'][1], SHAPES['isend'].split()))
        self.assertEqual(shape_tokens('coll.one_to_all', 'bcast', 'I')[-1], 'Req')

    def test_each_module_wraps_what_it_should_see(self):
        for module in MODULE_FAMILIES:
            have = exported(module)
            if have is None:  # trace without OTF2
                continue
            left = sorted(n for n, (fam, _, mode, _, _) in self.classes.items()
                          if module_should_see(module, fam)
                          and mode not in MODES_LEFT.get(module, ()) and n not in have)
            self.assertEqual(left, [], '%s.so has no wrapper for these' % module)


if __name__ == '__main__':
    unittest.main()
# SPDX-License-Identifier: BSD-3-Clause
