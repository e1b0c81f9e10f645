/* jpeglib.h needs FILE and size_t declared before it. */
#include <stdio.h>
#include <jpeglib.h>
