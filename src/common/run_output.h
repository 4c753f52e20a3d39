/* run_output.h: where a module writes: the run's output directory from the core
 * (mpilens_output_dir), else MPILENS_OUTPUT, else the working directory (a module
 * preloaded alone, without mpilens). */
#ifndef LENS_RUN_OUTPUT_H
#define LENS_RUN_OUTPUT_H

__attribute__((visibility("hidden"))) const char *lens_run_output_dir(void);

#endif
