#include "trace/trace-hw_tgpu.h"
