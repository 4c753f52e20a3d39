! fcover_mpifh.f90: the data-moving families from Fortran through mpif.h
! (tests/apps/fcover_body.inc; tests/core/test_fortran.sh checks what the modules see).
program fcover_mpifh
  implicit none
  include 'mpif.h'
  include 'fcover_body.inc'
end program fcover_mpifh
! SPDX-License-Identifier: BSD-3-Clause
