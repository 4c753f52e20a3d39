/* SPDX-License-Identifier: BSD-3-Clause */
/* python_sites.c: the call site of an MPI call made from Python.
 *
 * mpi4py (and any binding written as a Python extension) calls MPI from the extension's
 * code, so the return address the core stores names a place inside MPI.cpython-*.so, the
 * same for every line of the program. The call site a Python user can read is the Python
 * frame that called the extension: its file, line and function. The core reads it from the
 * interpreter of the calling thread when the stored site lies in an extension module's code
 * (which objects are extensions is learnt as calls come from them).
 *
 * What is safe (docs/python.md): mpi4py releases the GIL around most MPI calls, so the
 * frame is read without taking it and without asking the interpreter for anything that
 * allocates or counts references. Only this thread's own frames are read (its thread state
 * comes from PyGILState_GetThisThreadState, a thread-local read), and while this thread is
 * inside the MPI call no other thread changes its frame stack; the code object is kept
 * alive by the frame; the line comes from PyCode_Addr2Line, which reads the code's
 * immutable line table (faulthandler reads frames the same way from a signal handler).
 * Names are copied from the code object's strings by hand, once per site. The frame's
 * layout is CPython's own (internal/pycore_frame.h) and differs between minor versions, so
 * it is read only when the interpreter is the minor version mpilens was built with;
 * otherwise, and where no frame is found, the site says "python" and why.
 *
 * A site is interned once per (code object, instruction) in a table under a mutex, and
 * named by the address of its entry in `sites` (never code, so never confused with an
 * application address); mpilens_site_label gives its text, which the profile sends to
 * rank 0 in place of an object's path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"

#define MAX_OBJECTS 64
#define MAX_SITES 1024
#define CACHE 4096 /* a power of two */

LENS_HIDDEN int lens_npython; /* 1: the process has a Python interpreter */

/* The code of the objects sites were seen in, each an extension module or not (found as
 * calls come: numpy alone loads dozens of extensions before mpi4py). Appended under
 * `lock`, read without it (an entry is written before the count that shows it). */
static struct {
    struct code_range code;
    int extension;
} objects[MAX_OBJECTS];
static int nobjects;

struct python_site {
    char label[1024]; /* "python:FILE:FUNCTION:LINE" (mpilens.h) */
};
static struct python_site sites[MAX_SITES + 1]; /* the last: the table is full */
static int nsites;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int is_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strstr(base, ".cpython-") || strstr(base, ".abi3.") || strstr(path, "/mpi4py/");
}

/* The index of the site named LABEL, added if new (`lock` held); MAX_SITES, the entry that
 * says so, once the table is full. */
static int intern(const char *label)
{
    for (int i = 0; i < nsites; i++)
        if (strcmp(sites[i].label, label) == 0)
            return i;
    if (nsites == MAX_SITES)
        return MAX_SITES;
    snprintf(sites[nsites].label, sizeof sites[nsites].label, "%s", label);
    return nsites++;
}

/* A site with a fixed text (no frame could be read), interned like the others. */
static void *fixed_site(const char *why)
{
    char label[1024];
    snprintf(label, sizeof label, "python:python:(%s):0", why);
    pthread_mutex_lock(&lock);
    int i = intern(label);
    pthread_mutex_unlock(&lock);
    return &sites[i];
}

#ifdef MPILENS_HAVE_PYTHON
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>

typedef PyThreadState *(*this_thread_fn)(void);
typedef int (*addr2line_fn)(PyCodeObject *, int);
static this_thread_fn this_thread;
static addr2line_fn addr2line;
static char unusable[256]; /* why frames are not read, or "" */

static void find_interpreter(void)
{
    const unsigned long *version = lens_real_dlsym(RTLD_DEFAULT, "Py_Version");
    this_thread = (this_thread_fn)lens_real_dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    addr2line = (addr2line_fn)lens_real_dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
    if (!this_thread || !addr2line)
        snprintf(unusable, sizeof unusable, "no Python interpreter in the process");
    else if (!version)
        snprintf(unusable, sizeof unusable, "Python older than 3.11; mpilens was built for %d.%d",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
    else if ((*version >> 16) != (PY_VERSION_HEX >> 16))
        snprintf(unusable, sizeof unusable, "Python %lu.%lu; mpilens was built for %d.%d",
                 *version >> 24, (*version >> 16) & 0xff, PY_MAJOR_VERSION, PY_MINOR_VERSION);
}

/* The frame layout of the interpreter mpilens was built with. */
#if PY_VERSION_HEX >= 0x030D0000
static _PyInterpreterFrame *current_frame(PyThreadState *t)
{
    return t->current_frame;
}
static PyTypeObject *code_type; /* PyCode_Type, looked up: libmpilens links no Python */
static PyCodeObject *frame_code(_PyInterpreterFrame *f)
{
    if (!code_type)
        code_type = lens_real_dlsym(RTLD_DEFAULT, "PyCode_Type");
    return f->f_executable && Py_TYPE(f->f_executable) == code_type
               ? (PyCodeObject *)f->f_executable
               : NULL;
}
#define FRAME_IS_C(f) ((f)->owner == FRAME_OWNED_BY_CSTACK)
#elif PY_VERSION_HEX >= 0x030C0000
static _PyInterpreterFrame *current_frame(PyThreadState *t)
{
    return t->cframe->current_frame;
}
static PyCodeObject *frame_code(_PyInterpreterFrame *f)
{
    return f->f_code;
}
#define FRAME_IS_C(f) ((f)->owner == FRAME_OWNED_BY_CSTACK)
#else
static _PyInterpreterFrame *current_frame(PyThreadState *t)
{
    return t->cframe->current_frame;
}
static PyCodeObject *frame_code(_PyInterpreterFrame *f)
{
    return f->f_code;
}
#define FRAME_IS_C(f) 0
#endif

/* A str object's text as UTF-8 into OUT, read without the interpreter's help. */
static void copy_text(PyObject *o, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    if (!o || !PyUnicode_Check(o) || !PyUnicode_IS_READY(o))
        return;
    Py_ssize_t count = PyUnicode_GET_LENGTH(o);
    int kind = PyUnicode_KIND(o);
    const void *data = PyUnicode_DATA(o);
    for (Py_ssize_t i = 0; i < count && n + 5 < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80) {
            out[n++] = (char)c;
        } else if (c < 0x800) {
            out[n++] = (char)(0xC0 | (c >> 6));
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[n++] = (char)(0xE0 | (c >> 12));
            out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[n++] = (char)(0xF0 | (c >> 18));
            out[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[n] = '\0';
}

/* The (code, instruction) -> site cache; skip marks a frame of mpi4py's own Python code. */
static struct {
    PyCodeObject *code;
    int lasti;
    int site; /* index in sites, or -1: skip to the caller */
} cache[CACHE];

/* The site of CODE at instruction LASTI, named now (`lock` held); -1 for a frame of
 * mpi4py's own Python code or of the import machinery (MPI_Init runs when mpi4py.MPI is
 * imported): the caller is the frame below. */
static int name_frame(PyCodeObject *code, int lasti)
{
    char file[512], function[256], label[1024];
    copy_text(code->co_filename, file, sizeof file);
    copy_text(code->co_qualname, function, sizeof function);
    if (strstr(file, "/mpi4py/") || strncmp(file, "<frozen importlib", 17) == 0)
        return -1;
    snprintf(label, sizeof label, "python:%s:%s:%d", file, function,
             addr2line(code, lasti * (int)sizeof(_Py_CODEUNIT)));
    return intern(label);
}

/* The site of frame F, from the cache or named now (`lock` held); -1: skip to its caller. */
static int site_of_frame(_PyInterpreterFrame *f, PyCodeObject *code)
{
    int lasti = _PyInterpreterFrame_LASTI(f);
    size_t h = (((uintptr_t)code >> 4) * 0x9E3779B97F4A7C15ull + (size_t)lasti) >> 40;
    for (size_t probe = 0; probe < 16; probe++) {
        size_t at = (h + probe) & (CACHE - 1);
        if (cache[at].code == code && cache[at].lasti == lasti)
            return cache[at].site;
        if (!cache[at].code) {
            cache[at].code = code;
            cache[at].lasti = lasti;
            cache[at].site = name_frame(code, lasti);
            return cache[at].site;
        }
    }
    return name_frame(code, lasti); /* the cache's neighbourhood is full: not kept */
}

static void *frame_site(void)
{
    if (unusable[0])
        return fixed_site(unusable);
    PyThreadState *t = this_thread();
    if (!t)
        return fixed_site("the calling thread has no Python thread state");
    pthread_mutex_lock(&lock);
    int site = -1;
    for (_PyInterpreterFrame *f = current_frame(t); f && site == -1; f = f->previous) {
        PyCodeObject *code = frame_code(f);
        if (code && !FRAME_IS_C(f) && !_PyFrame_IsIncomplete(f))
            site = site_of_frame(f, code);
    }
    pthread_mutex_unlock(&lock);
    if (site < 0)
        return fixed_site("no Python frame on the calling thread");
    return &sites[site];
}
#else
static void find_interpreter(void) {}
static void *frame_site(void)
{
    return fixed_site("mpilens was built without Python's headers (python3-dev)");
}
#endif

void lens_find_python(void)
{
    snprintf(sites[MAX_SITES].label, sizeof sites[MAX_SITES].label,
             "python:python:(more than %d Python call sites):0", MAX_SITES);
    if (lens_real_dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState")) {
        lens_npython = 1;
        find_interpreter();
    }
}

/* Whether SITE lies in a Python extension module's code. */
static int in_extension(void *site)
{
    int n = __atomic_load_n(&nobjects, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if ((uintptr_t)site - objects[i].code.lo < objects[i].code.span)
            return objects[i].extension;
    Dl_info info;
    int extension = dladdr(site, &info) && info.dli_fname && is_extension(info.dli_fname);
    pthread_mutex_lock(&lock);
    if (nobjects < MAX_OBJECTS) { /* else asked again next time: slower, still right */
        objects[nobjects].code = lens_code_around(site);
        objects[nobjects].extension = extension;
        __atomic_store_n(&nobjects, nobjects + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return extension;
}

void *lens_python_caller(void *site)
{
    return in_extension(site) ? frame_site() : site;
}

const char *mpilens_site_label(void *site)
{
    uintptr_t at = (uintptr_t)site - (uintptr_t)sites;
    if (at >= sizeof sites || at % sizeof *sites)
        return NULL;
    return ((struct python_site *)site)->label;
}
