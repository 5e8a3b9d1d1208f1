package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	acpproxy "github.com/swetouch/swetouch/proxy/acp"
)

// acpOptions is `swetouch acp`: its flags, and its run over them.
type acpOptions struct {
	sock, root, traffic, deliver, conv string
	noWrap, noTrafficEvents            bool
	ip                                 inPlace
	args                               []string // the agent's command, after --
}

func acpCmd() *cobra.Command {
	var o acpOptions
	c := &cobra.Command{
		Use:   "acp [--session SOCKET | --records FILE [--instance ID] [--condition C] [--match M] --out DIR] [--root DIR] [--deliver auto|queue|interrupt] [--traffic FILE] -- AGENT ARGS...",
		Short: "Run an ACP agent behind a transparent relay: name it as the agent command in the editor",
		Long: "Every message passes both ways as it came. Reads (fs/read_text_file, read tool calls) and\n" +
			"writes (fs/write_text_file, edit tool calls) are reported to the session with their lines,\n" +
			"terminals as commands; the user's messages reach the agent as _session/steering when it\n" +
			"takes it, else as a user turn after the current one (the editor's next prompt waits);\n" +
			"--deliver queue never steers, --deliver interrupt cancels the running turn first. Either way\n" +
			"the editor is shown them as user messages. Stdio MCP servers of session/new and\n" +
			"session/load run through `swetouch mcp`. Every message is in the session's trajectory (a\n" +
			"traffic event; one over 1 MiB as head, tail and hash); --traffic writes them all, whole,\n" +
			"to FILE (JSONL).\n" +
			"With --records (or --out alone) it runs a session of its own over --root, in place: the agent's\n" +
			"shell goes through the shim, the Counter-Edit lands in that directory, and trajectory.jsonl and\n" +
			"session.json go to --out. With --conversation TASK (and --out) it plays the multi-turn task's\n" +
			"user itself: the editor's prompt opens the conversation; at each turn's end the tests run on a\n" +
			"copy of --root and the user's next message is a prompt of the relay's own, shown to the editor;\n" +
			"the editor's turn ends when the conversation does, and session.json keeps the turns.\n" +
			"Without any session it relays (and logs) only.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.args = args
			return o.run(c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	return c
}

func (o *acpOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.sock, "session", "", "the hub's socket (default: $SWETOUCH_SOCKET)")
	fs.StringVar(&o.root, "root", "", "the workspace (default: the current directory)")
	fs.StringVar(&o.traffic, "traffic", "", "write every ACP message, both ways, to this JSONL file")
	o.ip.flags(fs)
	fs.StringVar(&o.deliver, "deliver", "auto", "how a message reaches the agent mid-turn: auto (steer when the agent takes _session/steering, else queue), queue, or interrupt (session/cancel, then the message as the next turn)")
	fs.BoolVar(&o.noTrafficEvents, "no-traffic-events", false, "keep the ACP messages out of the trajectory (it records them by default)")
	fs.BoolVar(&o.noWrap, "no-mcp-wrap", false, "leave session/new's MCP servers as they are")
	fs.StringVar(&o.conv, "conversation", "", "a multi-turn task (a task folder with conversation.json): the relay plays its user, turn after turn, over --root (with --out)")
}

func (o *acpOptions) run(stdin io.Reader, stdout, stderr io.Writer) error {
	delivery, err := acpproxy.ParseDelivery(o.deliver)
	if err != nil {
		return badInput("--deliver: %v", err)
	}
	root := workspaceRoot(o.root)
	var trafficLog *os.File
	if o.traffic != "" {
		f, err := os.Create(o.traffic)
		if err != nil {
			return badInput("--traffic: %v", err)
		}
		defer f.Close()
		trafficLog = f
	}
	// SIGINT or SIGTERM (the editor stopping the agent) reaches the
	// agent as SIGTERM; an in-place session still ends its files
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	agent := peerCommand(ctx, o.args, stderr)
	if o.conv != "" {
		if o.ip.out == "" {
			return badInput("--conversation: give --out DIR for the session's trajectory and turns")
		}
		if o.ip.talk, err = relayConversation(o.conv); err != nil {
			return err
		}
	}
	sock, own, err := o.ip.socket(o.sock, root, "swetouch acp", o.args)
	if err != nil {
		return err
	}
	opts := []acpproxy.Option{acpproxy.WithRoot(root), acpproxy.WithDelivery(delivery)}
	if own != nil {
		agent.Env = own.Env(os.Environ()) // its shell through the shim
		if own.Conversing() {
			opts = append(opts, acpproxy.WithTurns(own.Turns(ctx)))
		}
	}
	if o.noTrafficEvents {
		opts = append(opts, acpproxy.WithoutTrafficEvents())
	}
	if trafficLog != nil {
		opts = append(opts, acpproxy.WithTraffic(trafficLog))
	}
	hub := dialHub("acp", sock, stderr)
	if hub != nil {
		opts = append(opts, acpproxy.WithHub(hub))
		if exe, err := os.Executable(); err == nil && !o.noWrap {
			opts = append(opts, acpproxy.WithMCPWrapper(acpproxy.WrapMCP(exe, sock, root)))
		}
	}
	code, err := acpproxy.Run(agent, stdin, stdout, opts...)
	return end(ctx, "agent", own, hub, code, err)
}
