// The HUD's status lines: the last message and the last blow-up report.
// The state they read and the queries the HUD and --report ask of it; it
// calls no other part of the viewer, and every part may call it.
#ifndef PSB_VIEWER_STATUS_H
#define PSB_VIEWER_STATUS_H

#include "viewer.h"

/// Sets the HUD message (and prints errors on stderr).
void status_message(app *a, bool error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/// Is the message still shown (not expired)?
bool status_message_live(const app *a);
/// Forgets the message (the first scene's, said before the window shows).
void status_message_clear(app *a);
/// A world step blew up `bodies` bodies: its report (the world's last
/// event) is shown in the HUD, said on stderr (the first
/// MAX_REPORTED_BLOWUPS one by one), and counted for the exit status.
void status_blowup(app *a, int bodies);
/// The blow-up report's cause is gone (R, a scene change, a step within
/// its stable limit): it is no longer shown.
void status_blowup_clear(app *a);
/// Is the blow-up report still shown: set, its cause not gone, the blow-up
/// recent?
bool status_blowup_live(const app *a);

#endif
