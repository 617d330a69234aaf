// The sub-commands of the psb executable. Each takes the arguments after its
// name (argv[0] is the sub-command's name) and returns the exit status:
// 0 on success, 2 on a bad option or value, 1 on a failure while running.
#ifndef PSB_COMMANDS_H
#define PSB_COMMANDS_H

/// `psb sim`: a headless run of a generated shape or of an OBJ file's bodies
/// that prints a summary, a report or a CSV.
int psb_cmd_sim(int argc, char **argv);

/// `psb info`: the topology report of a generated shape, or of an OBJ file
/// after repair with what the repair did.
int psb_cmd_info(int argc, char **argv);

/// `psb bench`: ns per vertex-step of the simulation step on fixed scenes.
int psb_cmd_bench(int argc, char **argv);

#endif
