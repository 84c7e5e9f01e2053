/*
 * spoolsim - the subcommands of the spoolsim program.
 *
 * Each takes the arguments after its own name (argv[0] is the subcommand)
 * and returns the exit status.
 */
#ifndef SPOOLSIM_SPOOLSIM_H
#define SPOOLSIM_SPOOLSIM_H

int spoolsim_postmark(int argc, char **argv);
int spoolsim_relay(int argc, char **argv);
int spoolsim_bench(int argc, char **argv);
int spoolsim_ab(int argc, char **argv);
int spoolsim_raw(int argc, char **argv);
int spoolsim_calibrate(int argc, char **argv);
int spoolsim_plot(int argc, char **argv);

#endif
