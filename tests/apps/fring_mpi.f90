! fring_mpi.f90: the `use mpi` module under mpilens. A 1 KiB ring with MPI_STATUS_IGNORE, an
! Irecv/Waitall with MPI_STATUSES_IGNORE, a send from MPI_BOTTOM and an Allreduce
! with MPI_IN_PLACE; the argcheck module prints what the C modules see.
program fring_mpi
  use mpi
  implicit none
  integer :: rank, nranks, left, right, total, ierr
  integer(kind=1) :: outbuf(1024), inbuf(1024)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  integer :: blocks(1)
  integer :: btype
  logical :: ok
  integer :: reqs(1)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  outbuf = int(rank, 1)
  call MPI_Irecv(inbuf, 1024, MPI_BYTE, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(outbuf, 1024, MPI_BYTE, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Send(outbuf, 1024, MPI_BYTE, right, 8, MPI_COMM_WORLD, ierr)
  call MPI_Recv(inbuf, 1024, MPI_BYTE, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  ok = all(inbuf == int(left, 1))
  ! MPI_BOTTOM with an absolute-address datatype
  call MPI_Get_address(outbuf, addr(1), ierr)
  blocks(1) = 1024
  call MPI_Type_create_hindexed(1, blocks, addr, MPI_BYTE, btype, ierr)
  call MPI_Type_commit(btype, ierr)
  inbuf = 0
  call MPI_Irecv(inbuf, 1024, MPI_BYTE, left, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(MPI_BOTTOM, 1, btype, right, 9, MPI_COMM_WORLD, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Type_free(btype, ierr)
  ok = ok .and. all(inbuf == int(left, 1))
  total = 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,l1)', 'fring_mpi ranks=', total, ' ok=', ok
  call MPI_Finalize(ierr)
end program fring_mpi
! SPDX-License-Identifier: BSD-3-Clause
