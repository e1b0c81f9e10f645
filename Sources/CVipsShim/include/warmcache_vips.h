#ifndef WARMCACHE_VIPS_H
#define WARMCACHE_VIPS_H
struct _VipsImage;
typedef struct _VipsImage WCImage;
int wc_vips_init(void);
#endif
