// `psb view`: the command-line front end of the viewer. Built into the psb
// executable when the viewer is (PSB_HAVE_VIEWER).
#ifndef PSB_CMD_VIEW_H
#define PSB_CMD_VIEW_H

/// `psb view [options] [FILE.obj ...]`: opens the viewer. Returns the exit
/// status: 0, 2 on a bad option or no display, 1 on a failure while running.
int psb_cmd_view(int argc, char **argv);

#endif
