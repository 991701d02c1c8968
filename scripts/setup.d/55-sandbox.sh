# Sandbox of execution counting (ridgeline.sandbox): bubblewrap isolates the
# compiler and the counted program (no network, read-only filesystem but the run's work
# folder, own PID namespace); prlimit and setpriv (util-linux) set its limits and uid.
# Sourced by scripts/test.sh (apt_install available).
apt_install bubblewrap util-linux
