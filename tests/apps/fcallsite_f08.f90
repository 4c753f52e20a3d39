! fcallsite_f08.f90: call sites from Fortran through `use mpi_f08` (body: fcallsite_body.inc).
program fcallsite
  use mpi_f08
  implicit none
  integer :: rank, nranks, i, buf, ierr
  type(MPI_Status) :: status
  include 'fcallsite_body.inc'
end program fcallsite
! SPDX-License-Identifier: BSD-3-Clause
