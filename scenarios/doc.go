// Package scenarios is waitsim's own scenario table: the files under table/
// and sweep/, their golden traces under golden/, scenario files' JSON
// Schema (schema.json), and the tests that run them through the door a
// maintainer uses (waitsim.Run) with the wait_agents contract pack on the
// reference tool. It holds no code of its own.
//
// Rules:
//   - Every file has a "# protects:" line saying what it guards.
//   - A golden trace changes only through make golden, reviewed in its diff.
//   - The table runs only through the door (waitsim.Run), as a
//     maintainer's would.
package scenarios
