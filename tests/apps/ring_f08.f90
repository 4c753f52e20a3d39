! ring_f08.f90: tests/apps/ring.c with use mpi_f08 (issue 51): each rank sends 1 KiB to its
! right neighbour and receives from its left, ROUNDS times (argument 1, default 1), then a
! barrier, MPI_Pcontrol(1) and a reduction of the payload errors. The same calls, bytes and
! peers as the C ring, so the profile and the matrix must be the same.
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, left, right, r, i, rounds, bad, total
  character(len=32) :: arg
  integer(kind=1) :: outbuf(1024), inbuf(1024)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  rounds = 1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  bad = 0
  do r = 0, rounds - 1
    do i = 1, 1024
      outbuf(i) = int(mod(rank + i + r, 100), 1)
    end do
    if (mod(rank, 2) == 0) then
      call MPI_Send(outbuf, 1024, MPI_CHARACTER, right, r, MPI_COMM_WORLD)
      call MPI_Recv(inbuf, 1024, MPI_CHARACTER, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(inbuf, 1024, MPI_CHARACTER, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(outbuf, 1024, MPI_CHARACTER, right, r, MPI_COMM_WORLD)
    end if
    do i = 1, 1024
      if (inbuf(i) /= int(mod(left + i + r, 100), 1)) bad = bad + 1
    end do
  end do
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Pcontrol(1)
  call MPI_Reduce(bad, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a,i0,a)', 'ring_f08 ok: ', nranks, ' ranks, ', rounds, ' rounds'
    else
      print '(a)', 'ring_f08 CORRUPT'
    end if
  end if
  call MPI_Finalize()
end program ring_f08
! SPDX-License-Identifier: BSD-3-Clause
