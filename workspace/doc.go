// Package workspace is what waitsim's commands share about the module and
// the machine they run in: the module's root and the test that runs its
// scenario table (FindSuite), where outputs go (layout.go), run directories
// that a killed run cannot leave behind (MakeRunDir), the state of the work
// tree (TreeState), paths read from files (CheckLocalPath), and child
// processes that never outlive the command (GroupCommand and its reaper;
// AttachedCommand for one that stays in the command's process group).
//
// Rules:
//   - It knows nothing of scenarios, mutants or reports: commands and the
//     mutation runner use it, never the reverse.
//   - Every default path, file name and environment variable name a command
//     shares with another lives here, once.
package workspace
