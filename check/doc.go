// Package check holds the checks that hold for any long-running MCP tool,
// and the Pack interface through which a kind of tool adds its own.
//
// The generic checks read a world's records from the caller's side only:
// what each call's caller saw, when, and what the transport did. They are
// the expectations a scenario writes (Expectations) and the invariants
// every case must keep (Invariants): a reply reaches its caller within the
// caller's timeout or is lost with a named cause; progress carries the
// caller's token, grows and never exceeds its total.
//
// Rules:
//   - A check never reads the tool's own account of itself.
//   - A check returns messages; it never fails a test itself: the verdict
//     is the runner's (waitsim.Run).
//   - A pack (Pack) runs its worlds and adds its checks to these; Generic
//     is the pack of any tool registered on an mcp.Server, with these
//     checks alone.
//   - A pack that can serve a case to real clients on the real clock
//     implements Server (`waitsim serve`): it decides what server a case
//     gets, as it decides the world a case runs in. Generic does (the
//     tools as they are), and so does packs/waitagents.
//   - Times are virtual ms.
package check
