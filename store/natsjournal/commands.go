package natsjournal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

// Names and settings of a project's command queue (doc.go, "Commands from
// anywhere"). Part of the stream format.
const (
	cmdSuffix     = "_CMD"        // stream NEXUS_<p>_CMD
	cmdSubject    = ".c"          // subject nexus.<p>.c
	ownerConsumer = "owner"       // the durable consumer the project's owner pulls from
	hdrReply      = "Nexus-Reply" // where the owner publishes a command's outcome
	// cmdAckWait is how long the server waits for the owner's ack before
	// it hands a command out again (to this owner, or to the next one).
	cmdAckWait = 30 * time.Second
	// maxCmdBytes bounds a command on the queue: a message at the text
	// limit with every byte escaped fits.
	maxCmdBytes = 6*core.MaxTextBytes + 64<<10
)

// outcome is what the owner publishes on a command's Nexus-Reply subject
// once its events are durable: the receipt, or why it was refused.
type outcome struct {
	Receipt *core.Receipt `json:"receipt,omitempty"`
	Error   string        `json:"error,omitempty"`
	// Input: the command was refused as input (core.InputError); it was
	// not journaled.
	Input bool `json:"input,omitempty"`
}

// cmdNames are the server-side names of project's command queue.
func cmdNames(project string) (stream, subject string, err error) {
	if _, err := namesFor(project); err != nil {
		return "", "", err
	}
	tok := token(project)
	return streamPrefix + tok + cmdSuffix, subjectPrefix + tok + cmdSubject, nil
}

// commandStream looks up project's command queue, creating it when
// create is set (a host's credentials; a viewer's only look).
func commandStream(ctx context.Context, js jetstream.JetStream, project string, replicas int, create bool) (jetstream.Stream, string, error) {
	name, subject, err := cmdNames(project)
	if err != nil {
		return nil, "", err
	}
	if !create {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, "", fmt.Errorf("natsjournal: project %s has no command queue on this hub (stream %s: %v); a host of the project makes it", project, name, err)
		}
		return s, subject, nil
	}
	if replicas <= 0 {
		replicas = 1
	}
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        name,
		Description: "nexus commands to project " + project,
		Subjects:    []string{subject},
		Retention:   jetstream.WorkQueuePolicy,
		MaxMsgs:     -1, MaxBytes: -1, MaxAge: 0, MaxMsgSize: int32(maxCmdBytes),
		Discard:    jetstream.DiscardNew,
		Storage:    jetstream.FileStorage,
		Replicas:   replicas,
		Duplicates: DefaultDuplicates,
	})
	if err != nil {
		return nil, "", fmt.Errorf("natsjournal: create or update stream %s: %w; are these a host's credentials?", name, err)
	}
	return s, subject, nil
}

// ServeCommands runs the commands sent to project through the hub (see
// doc.go, "Commands from anywhere") on b, one at a time in the order they
// were queued, until ctx ends or the connection fails. Only the holder of
// the project's lease may call it. Each command is submitted to b, its
// outcome published on the sender's reply subject, and only then acked:
// a command whose owner stops before the ack is handed to the next owner,
// whose b answers a command id it has seen with the first receipt.
func ServeCommands(ctx context.Context, nc *nats.Conn, project string, replicas int, b core.Backend, logf func(string, ...any)) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("natsjournal: JetStream client: %w", err)
	}
	s, subject, err := commandStream(ctx, js, project, replicas, true)
	if err != nil {
		return err
	}
	cons, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: ownerConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: cmdAckWait,
		FilterSubject: subject, MaxAckPending: 1,
	})
	if err != nil {
		return fmt.Errorf("natsjournal: the command queue's consumer: %w", err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(1))
	if err != nil {
		return fmt.Errorf("natsjournal: pull from the command queue: %w", err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return ctx.Err()
			}
			return fmt.Errorf("natsjournal: the command queue: %w", err)
		}
		serveOne(ctx, nc, m, b, logf)
	}
}

// serveOne runs one queued command.
func serveOne(ctx context.Context, nc *nats.Conn, m jetstream.Msg, b core.Backend, logf func(string, ...any)) {
	reply := m.Headers().Get(hdrReply)
	var out outcome
	cmd, err := decodeCommand(m.Data())
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, cmdAckWait/2)
		var rc *core.Receipt
		rc, err = b.Submit(sctx, cmd)
		cancel()
		out.Receipt = rc
	}
	var ie *core.InputError
	switch {
	case err == nil:
	case errors.As(err, &ie):
		out.Input, out.Error = true, ie.Msg
	case ctx.Err() != nil || errors.Is(err, core.ErrStopped):
		// The owner is stopping: the command stays queued for the next.
		_ = m.Nak()
		return
	case errors.Is(err, context.DeadlineExceeded):
		// The kernel did not answer in time: the command may still be
		// decided. It comes again in a moment, and its id then answers
		// with the first receipt; the sender keeps waiting.
		_ = m.NakWithDelay(time.Second)
		return
	default:
		out.Error = err.Error()
	}
	if reply != "" {
		if body, err := json.Marshal(out); err == nil {
			_ = nc.Publish(reply, body)
		}
	}
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.DoubleAck(actx); err != nil && logf != nil {
		logf("a command from the hub ran but its ack was lost (%v); if it comes again its id answers with the first receipt", err)
	}
}

// decodeCommand decodes a queued command strictly, as the host's socket
// does: an unknown field is refused.
func decodeCommand(data []byte) (core.Command, error) {
	var cmd core.Command
	if len(data) > maxCmdBytes {
		return cmd, &core.InputError{Msg: fmt.Sprintf("a command of %d bytes came through the hub; the limit is %d", len(data), maxCmdBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd); err != nil {
		return cmd, &core.InputError{Msg: fmt.Sprintf("a command from the hub does not decode (%v); is the sender's nexus of another version?", err)}
	}
	if cmd.ID == "" {
		return cmd, &core.InputError{Msg: "a command from the hub has no id; every command needs one"}
	}
	return cmd, nil
}
