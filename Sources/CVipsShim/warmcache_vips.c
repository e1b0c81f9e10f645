#include <vips/vips.h>
#include "warmcache_vips.h"
int wc_vips_init(void) { return VIPS_INIT("warm-cache"); }
