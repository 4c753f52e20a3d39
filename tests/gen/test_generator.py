"""test_generator.py: unit tests of the wrapper generator's mpi.h parser and emitter."""
import unittest

from gen_wrappers import emit_function, family
from parse_mpi_h import parse

SAMPLE = '''
# 1 "mpi.h"
typedef int MPI_Comm;
__attribute__((visibility("default"))) int PMPI_Send(const void *buf, int count,
    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) __attribute__((deprecated("x (y)")));
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
double PMPI_Wtime(void);
int PMPI_Pcontrol(const int level, ...);
int PMPI_File_close(MPI_File *);
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
typedef int (PMPI_Fake_fn)(int);
'''


class ParserTest(unittest.TestCase):
    def setUp(self):
        self.funcs = {name: (ret, params) for ret, name, params in parse(SAMPLE)}

    def test_finds_each_function_once(self):
        self.assertEqual(sorted(self.funcs), ['MPI_Comm_f2c', 'MPI_File_close', 'MPI_Group_range_incl',
                                              'MPI_Pcontrol', 'MPI_Send', 'MPI_Wtime'])

    def test_attributes_and_qualifiers(self):
        ret, params = self.funcs['MPI_Send']
        self.assertEqual(ret, 'int')
        self.assertEqual(params[0], ('const void *', 'buf', ''))
        self.assertEqual([p[1] for p in params], ['buf', 'count', 'datatype', 'dest', 'tag', 'comm'])

    def test_array_parameters(self):
        self.assertEqual(self.funcs['MPI_Group_range_incl'][1][2], ('int', 'ranges', '[][3]'))

    def test_unnamed_parameter_gets_a_name(self):
        self.assertEqual(self.funcs['MPI_File_close'][1], [('MPI_File *', 'a0', '')])

    def test_void_and_return_types(self):
        self.assertEqual(self.funcs['MPI_Wtime'], ('double', []))
        self.assertEqual(self.funcs['MPI_Comm_f2c'][0], 'MPI_Comm')

    def test_variadic(self):
        self.assertEqual(self.funcs['MPI_Pcontrol'][1][1], ('...', '...', ''))


class EmitterTest(unittest.TestCase):
    def test_pcontrol_forwards_the_level_only(self):
        ret, name, params = [f for f in parse(SAMPLE) if f[1] == 'MPI_Pcontrol'][0]
        code = emit_function(7, 7, ret, name, params, False)
        self.assertIn('int MPI_Pcontrol(const int level, ...) { LENS_ENTRY(7, lens_fn_Pcontrol, '
                      'lens_top_Pcontrol, lens_own_Pcontrol, level); }', code)
        self.assertIn('int PMPI_Pcontrol(const int level, ...) { LENS_STEP(7, 7,', code)

    def test_no_argument_function(self):
        code = emit_function(3, 3, 'double', 'MPI_Wtime', [], False)
        self.assertIn('double MPI_Wtime(void) { LENS_ENTRY(3, lens_fn_Wtime, lens_top_Wtime, '
                      'lens_own_Wtime); }', code)

    def test_init_and_init_thread_are_one_family(self):
        index = {'MPI_Finalize': 0, 'MPI_Init': 1, 'MPI_Init_thread': 2, 'MPI_Send': 3}
        self.assertEqual([family(n, index, k) for n, k in index.items()], [0, 1, 1, 3])
        code = emit_function(2, 1, 'int', 'MPI_Init_thread', [('int *', 'argc', '')], False)
        self.assertIn('LENS_STEP(2, 1, lens_fn_Init_thread', code)
        self.assertIn('LENS_RUN(int, lens_fn_Init_thread, 2, 1, LENS_TOP_HOP', code)


if __name__ == '__main__':
    unittest.main()
# SPDX-License-Identifier: BSD-3-Clause
