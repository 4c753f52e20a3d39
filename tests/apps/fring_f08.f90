! fring_f08.f90: Fortran 2008 bindings (use mpi_f08) under mpilens: a 1 KiB ring with
! MPI_STATUS_IGNORE, an Allreduce with MPI_IN_PLACE and an Irecv/Waitall with
! MPI_STATUSES_IGNORE; the argcheck module prints what C modules see.
program fring_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, left, right, total
  integer(kind=1) :: outbuf(1024), inbuf(1024)
  type(MPI_Request) :: reqs(1)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  outbuf = int(rank, 1)
  call MPI_Irecv(inbuf, 1024, MPI_BYTE, left, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(outbuf, 1024, MPI_BYTE, right, 7, MPI_COMM_WORLD)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE)
  call MPI_Send(outbuf, 1024, MPI_BYTE, right, 8, MPI_COMM_WORLD)
  call MPI_Recv(inbuf, 1024, MPI_BYTE, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  total = 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,l1)', 'fring_f08 ranks=', total, ' ok=', all(inbuf == int(left, 1))
  call MPI_Finalize()
end program fring_f08
