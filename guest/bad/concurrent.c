/* bad/concurrent.c — the ftrace guest with a patching bug the validator must catch (guest/NOTES.md). */
const char ftrace_default_bug[] = "concurrent";
