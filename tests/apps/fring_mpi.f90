! fring_mpi.f90: the `use mpi` module under mpilens: a 1 KiB ring with MPI_STATUS_IGNORE, an
! Allreduce with MPI_IN_PLACE and an Irecv/Waitall with MPI_STATUSES_IGNORE; the
! argcheck module prints what C modules see.
program fring_mpi
  use mpi
  implicit none
  integer :: rank, nranks, left, right, total, ierr
  integer(kind=1) :: outbuf(1024), inbuf(1024)
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
  total = 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,l1)', 'fring_mpi ranks=', total, ' ok=', all(inbuf == int(left, 1))
  call MPI_Finalize(ierr)
end program fring_mpi
