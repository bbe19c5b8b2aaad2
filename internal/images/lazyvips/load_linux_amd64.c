// The loader behind the trampolines (see doc.go): hygiene_vips_slots holds
// each function's address once libvips is loaded, in the order of
// hygiene_vips_names.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <vips/version.h>

#include "symbols_linux_amd64.h"

__attribute__((visibility("hidden"))) void *hygiene_vips_slots[HYGIENE_VIPS_COUNT];

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static const char *failure;
static char failure_text[512];

// load opens libvips.so.42 and fills every slot, or sets failure.
static void load(void) {
	void *lib = dlopen("libvips.so.42", RTLD_NOW | RTLD_GLOBAL);
	if (lib == NULL) {
		snprintf(failure_text, sizeof failure_text, "%s", dlerror());
		failure = failure_text;
		return;
	}
	for (int i = 0; i < HYGIENE_VIPS_COUNT; i++) {
		void *f = dlsym(lib, hygiene_vips_names[i]);
		if (f == NULL) {
			snprintf(failure_text, sizeof failure_text, "%s has no %s", "libvips.so.42", hygiene_vips_names[i]);
			failure = failure_text;
			return;
		}
		__atomic_store_n(&hygiene_vips_slots[i], f, __ATOMIC_RELEASE);
	}
}

// hygiene_vips_load loads libvips once per process; it returns NULL, or
// why libvips cannot be loaded.
const char *hygiene_vips_load(void) {
	pthread_once(&loaded, load);
	return failure;
}

// hygiene_vips_resolve is the trampolines' slow path (through
// hygiene_vips_resolve_saving, which keeps the caller's arguments): a
// libvips function called when libvips cannot be loaded ends the process
// with the reason, as the dynamic loader does for a missing library.
__attribute__((visibility("hidden"))) void hygiene_vips_resolve(void) {
	const char *err = hygiene_vips_load();
	if (err != NULL) {
		fprintf(stderr, "hygiene: libvips cannot be loaded: %s\n", err);
		abort();
	}
}

// vips_version and vips_version_string answer from the headers, without
// loading libvips: govips reads them while its package is initialised.
__attribute__((visibility("hidden"))) int vips_version(int flag) {
	switch (flag) {
	case 0:
		return VIPS_MAJOR_VERSION;
	case 1:
		return VIPS_MINOR_VERSION;
	case 2:
		return VIPS_MICRO_VERSION;
	case 3:
		return VIPS_LIBRARY_CURRENT;
	case 4:
		return VIPS_LIBRARY_REVISION;
	case 5:
		return VIPS_LIBRARY_AGE;
	default:
		return -1;
	}
}

__attribute__((visibility("hidden"))) const char *vips_version_string(void) { return VIPS_VERSION_STRING; }
