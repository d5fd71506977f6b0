/* Preloaded into the sanitizer runs by tools/sanitize.sh: dlclose() does nothing, so the Open MPI
 * components (MCA plug-ins) that MPI_Finalize unloads stay mapped until exit and LeakSanitizer
 * can name the library of what they leave allocated (and tools/sanitizers/lsan.supp suppress
 * it); otherwise their allocations show as "<unknown module>" and cannot be told from ours. */
int dlclose(void *handle) {
  (void)handle;
  return 0;
}
