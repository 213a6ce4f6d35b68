/* bad/no-int3.c — the ftrace guest with a patching bug the validator must catch (guest/NOTES.md). */
const char ftrace_default_bug[] = "no-int3";
