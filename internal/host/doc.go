// Package host owns a state dir for as long as it runs: the journal
// (store), the Runner (core), the provider registry, the worker pool,
// the checkpoint executor and the socket server (core/api). Start
// opens it; Close stops it in the order that keeps the journal honest
// (the Runner first, so providers can no longer report; then the
// providers, the checkpoint executor, the worker pool, the socket and the
// journal).
//
// The effect router (Start's exec) sends checkpoint and restore effects
// to the checkpoint executor (checkpoints.go: one workspace at a time,
// in the kernel's order) and every other effect to the provider registry.
// The backend the socket serves adds the providers' live terminals to
// the Runner (terminals.go).
//
// A host tells what it does and is stopped through api.Admin (admin.go):
// Live counts runs not yet ended, pending requests and live terminals;
// Stop refuses without force while any is live; Verify and Export work on
// the journal it holds open. Dead is closed when the Runner stops on its
// own (the journal failed beyond recovery), with Err saying why: its
// owner closes the host and exits non-zero.
//
// Profiles (profiles.go) are the ready-made agents plus the config
// file's, resolved against the environment: NEXUS_<PROFILE>_COMMAND and
// the model variables win over the file.
package host
