! fcallsite_mpifh.f90: call sites from Fortran through mpif.h (body: fcallsite_body.inc).
program fcallsite
  implicit none
  include 'mpif.h'
  integer :: rank, nranks, i, buf, ierr
  integer :: status(MPI_STATUS_SIZE)
  include 'fcallsite_body.inc'
end program fcallsite
! SPDX-License-Identifier: BSD-3-Clause
