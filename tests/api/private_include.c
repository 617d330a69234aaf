// Built by ctest to show that the API boundary holds (tests/CMakeLists.txt).
// PSB_PROBE_HEADER names a header private to src/core, src/mesh or src/model.
// Linked as the viewer, the command line and the tests link the libraries,
// this file must not compile, for they see include/psb/ only; linked to
// psb_core_internal, with internal.h, it must.
#include <psb/psb.h>

#include PSB_PROBE_HEADER

int psb_private_include_probe(void);
int psb_private_include_probe(void) { return 0; }
