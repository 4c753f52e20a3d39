# SPDX-License-Identifier: BSD-3-Clause
# copy_empty.cmake: make COUNT copies of the empty module (emptyNNN.so in DIR) for the
# 100-layer test and the overhead benchmark. cmake -DSRC=... -DDIR=... -DCOUNT=... -P
file(MAKE_DIRECTORY ${DIR})
foreach(i RANGE 1 ${COUNT})
  string(LENGTH "${i}" len)
  math(EXPR pad "3 - ${len}")
  string(REPEAT "0" ${pad} zeros)
  file(COPY_FILE ${SRC} ${DIR}/empty${zeros}${i}.so ONLY_IF_DIFFERENT)
endforeach()
