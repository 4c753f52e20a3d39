! fcover_mpi.f90: the data-moving families from Fortran through `use mpi`
! (tests/apps/fcover_body.inc; tests/core/test_fortran.sh checks what the modules see).
program fcover_mpi
  use mpi
  implicit none
  include 'fcover_body.inc'
end program fcover_mpi
! SPDX-License-Identifier: BSD-3-Clause
