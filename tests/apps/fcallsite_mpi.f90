! fcallsite_mpi.f90: call sites from Fortran through `use mpi` (body: fcallsite_body.inc).
program fcallsite
  use mpi
  implicit none
  integer :: rank, nranks, i, buf, ierr
  integer :: status(MPI_STATUS_SIZE)
  include 'fcallsite_body.inc'
end program fcallsite
! SPDX-License-Identifier: BSD-3-Clause
