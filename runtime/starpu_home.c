/* StarPU's calibration directory, made safe before StarPU starts (runtime/preflight.h).
 *
 * Seen on StarPU 1.4.10: with $HOME read-only StarPU aborts at start; on a full disk it
 * aborts too, and leaves zero-length bus calibration files (sampling/bus/<host>.config,
 * .bandwidth, ...) after which every later start aborts until someone deletes them. So: make
 * the directory, write a probe into it, drop the truncated files (the host's whole set of
 * bus files, which StarPU then measures again), and where the directory cannot be used at all,
 * run on a private one. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/env.h"
#include "runtime/preflight.h"

#define PATH_BYTES 4096

/* dir/name into out (PATH_BYTES); -ENAMETOOLONG rather than a truncated path. */
static int join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_BYTES, "%s/%s", dir, name);
	return n < 0 || n >= PATH_BYTES ? -ENAMETOOLONG : 0;
}
/* A bus calibration is a few KiB; a disk with less than this free is as good as full. */
#define PROBE_BYTES (64 * 1024)

/* The directory StarPU will use, in its own order of precedence (src/common/utils.c,
 * _starpu_get_home_path; src/core/perfmodel/perfmodel.c). */
static void sampling_dir(char *dir)
{
	const char *model_dir = sg_env_text(SG_ENV_PERF_MODEL_DIR);
	if (model_dir && *model_dir) {
		snprintf(dir, PATH_BYTES, "%s", model_dir);
		return;
	}
	const char *names[] = { "XDG_CACHE_HOME", "STARPU_HOME", "HOME", "TMPDIR", "TEMP", "TMP" };
	const char *home = NULL;
	/* As StarPU sees them, set but empty included: outside the table. */
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]) && !home; n++)
		home = sg_env_outside(names[n]);
	if (join(dir, home ? home : "/tmp", ".starpu/sampling"))
		dir[0] = '\0'; /* too long for us: make_path fails on it and says so */
}

/* mkdir -p, 0700 as StarPU makes it. */
static int make_path(const char *path)
{
	char partial[PATH_BYTES];
	snprintf(partial, sizeof(partial), "%s", path);
	for (char *slash = partial + 1;; slash++) {
		char c = *slash;
		if (c != '/' && c != '\0')
			continue;
		*slash = '\0';
		struct stat st;
		if (mkdir(partial, 0700) != 0 && errno != EEXIST)
			return -errno;
		if (stat(partial, &st) != 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		*slash = c;
		if (c == '\0')
			return 0;
	}
}

/* Write PROBE_BYTES and sync them: a read-only or full file system fails here. */
static int probe(const char *dir)
{
	char path[PATH_BYTES];
	if (join(path, dir, ".starpu_gemm-probe-XXXXXX"))
		return -ENAMETOOLONG;
	int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	static const char zeros[4096];
	int ret = 0;
	for (size_t done = 0; done < PROBE_BYTES && !ret; done += sizeof(zeros))
		if (write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
			ret = errno ? -errno : -ENOSPC;
	if (!ret && fsync(fd) != 0 && errno != EINVAL)
		ret = -errno;
	if (close(fd) != 0 && !ret)
		ret = -errno;
	unlink(path);
	return ret;
}

/* Another process's StarPU writing the file holds a write lock on it (_starpu_fwrlock): its
 * file is empty because it is being written, not because a disk filled up. */
static int being_written(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int locked = fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
	close(fd);
	return locked;
}

/* Bus files are <host><suffix>: one empty file spoils the host's set, which StarPU reads
 * together, so the whole set goes. */
static const char *const bus_suffixes[] = { ".config", ".bandwidth", ".latency", ".affinity",
                                            ".platform.xml", ".platform.v4.xml" };
#define NSUFFIXES (sizeof(bus_suffixes) / sizeof(bus_suffixes[0]))

static size_t host_length(const char *name)
{
	size_t n = strlen(name);
	for (size_t s = 0; s < NSUFFIXES; s++) {
		size_t l = strlen(bus_suffixes[s]);
		if (n > l && !strcmp(name + n - l, bus_suffixes[s]))
			return n - l;
	}
	return 0;
}

static int empty_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
	       !being_written(path);
}

/* Removes the bus files of every host with an empty one. Returns files removed, or -errno. */
static int repair_bus(const char *bus)
{
	DIR *d = opendir(bus);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	int removed = 0, ret = 0;
	struct dirent *e;
	while ((e = readdir(d)) && !ret) {
		char path[PATH_BYTES], name[512];
		size_t host = host_length(e->d_name);
		if (!host || join(path, bus, e->d_name) || !empty_file(path))
			continue;
		for (size_t s = 0; s < NSUFFIXES; s++) {
			snprintf(name, sizeof(name), "%.*s%s", (int)host, e->d_name, bus_suffixes[s]);
			if (join(path, bus, name))
				continue;
			if (unlink(path) == 0)
				removed++;
			else if (errno != ENOENT)
				ret = -errno;
		}
	}
	closedir(d);
	return ret ? ret : removed;
}

/* Codelet models: sampling/codelets/<version>/<symbol>.<host>. An empty one is dropped (the
 * codelet is calibrated again). Returns files removed, or -errno. */
static int repair_codelets(const char *codelets)
{
	DIR *d = opendir(codelets);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	int removed = 0, ret = 0;
	struct dirent *version;
	while ((version = readdir(d)) && !ret) {
		char sub[PATH_BYTES];
		if (version->d_name[0] == '.')
			continue;
		DIR *v = join(sub, codelets, version->d_name) ? NULL : opendir(sub);
		struct dirent *e;
		while (v && (e = readdir(v)) && !ret) {
			char path[PATH_BYTES];
			if (join(path, sub, e->d_name) || !empty_file(path))
				continue;
			if (unlink(path) == 0)
				removed++;
			else if (errno != ENOENT)
				ret = -errno;
		}
		if (v)
			closedir(v);
	}
	closedir(d);
	return ret ? ret : removed;
}

/* An exclusive flock(2) on dir/.starpu_gemm.lock, held until the descriptor is closed; works
 * without MPI, for any launcher. -errno where it cannot be had (then no lock: the repair only
 * removes empty files, so racing is untidy, not harmful). */
static int lock_dir(const char *dir)
{
	char path[PATH_BYTES];
	if (join(path, dir, ".starpu_gemm.lock"))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			int ret = -errno;
			close(fd);
			return ret;
		}
	}
	return fd;
}

/* 0, or -errno saying why dir cannot hold StarPU's calibrations. *repaired: files removed. */
static int usable(const char *dir, int *repaired)
{
	char bus[PATH_BYTES], codelets[PATH_BYTES];
	*repaired = 0;
	int ret = join(bus, dir, "bus");
	if (!ret)
		ret = join(codelets, dir, "codelets");
	if (!ret)
		ret = make_path(bus);
	if (!ret)
		ret = probe(bus);
	if (ret)
		return ret;
	/* The ranks of a node share this directory: one repairs while the others wait, then find
	 * nothing left to remove (two repairing at once removed each other's files). */
	int lock = lock_dir(dir);
	int removed = repair_bus(bus);
	if (removed >= 0) {
		*repaired += removed;
		removed = repair_codelets(codelets);
	}
	if (removed >= 0)
		*repaired += removed;
	if (lock >= 0)
		close(lock); /* releases the flock */
	return removed < 0 ? removed : 0;
}

static char private_home[PATH_BYTES];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void remove_private_home(void)
{
	if (private_home[0])
		nftw(private_home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	private_home[0] = '\0';
}

int sg_starpu_home_prepare(char *notice, size_t noticelen, char *err, size_t errlen)
{
	char dir[PATH_BYTES];
	int repaired = 0;
	if (noticelen)
		notice[0] = '\0';
	if (private_home[0])
		return 0; /* this process already runs on its own */
	sampling_dir(dir);
	int why = usable(dir, &repaired);
	if (!why) {
		if (repaired)
			snprintf(notice, noticelen, "removed %d empty StarPU calibration file(s) under "
			         "%s (left by a run that ran out of disk); StarPU measures again",
			         repaired, dir);
		return 0;
	}

	const char *tmp = sg_env_outside("TMPDIR");
	snprintf(private_home, sizeof(private_home), "%s/starpu_gemm-home-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	char sampling[PATH_BYTES];
	int tmp_why = mkdtemp(private_home) ? 0 : -errno;
	if (!tmp_why) {
		atexit(remove_private_home);
		tmp_why = join(sampling, private_home, ".starpu/sampling");
		if (!tmp_why)
			tmp_why = usable(sampling, &repaired);
	}
	if (tmp_why) {
		snprintf(err, errlen, "no usable directory for StarPU's calibration files: %s: %s; "
		         "%s: %s (set STARPU_HOME to a writable directory with free space)", dir,
		         strerror(-why), private_home, strerror(-tmp_why));
		remove_private_home();
		return -1;
	}
	setenv("STARPU_HOME", private_home, 1);
	setenv("STARPU_PERF_MODEL_DIR", sampling, 1);
	snprintf(notice, noticelen, "StarPU's calibration directory %s is unusable (%s): using "
	         "%s for this run, its calibrations are not kept (set STARPU_HOME to a writable "
	         "directory to keep them)", dir, strerror(-why), private_home);
	return 0;
}
