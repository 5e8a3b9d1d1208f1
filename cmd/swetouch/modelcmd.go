package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/modelserver"
)

func modelCmd() *cobra.Command {
	c := &cobra.Command{Use: "model", Short: "The scripted model server"}
	var scriptPath, listenAddr, logPath, record, cassette string
	serve := &cobra.Command{
		Use:   "serve (--script FILE | --cassette FILE | --record URL --cassette FILE) [--listen 127.0.0.1:0] [--log FILE]",
		Short: "Serve a fake model (Anthropic, OpenAI Responses, Gemini) from a script or a cassette, or record one",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var h http.Handler
			switch {
			case record != "":
				if cassette == "" {
					return badInput("--record needs --cassette to write to")
				}
				u, err := url.Parse(record)
				if err != nil || u.Host == "" {
					return badInput("--record: want a URL, got %q", record)
				}
				f, err := os.OpenFile(cassette, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return err
				}
				defer f.Close()
				h = modelserver.NewRecorder(u, f)
			case cassette != "":
				cs, err := modelserver.LoadCassette(cassette)
				if err != nil {
					return badInput("--cassette: %v", err)
				}
				h = cs
			case scriptPath != "":
				s, err := modelserver.LoadScript(scriptPath)
				if err != nil {
					return badInput("--script: %v", err)
				}
				var sink *os.File
				if logPath != "" {
					if sink, err = os.Create(logPath); err != nil {
						return err
					}
					defer sink.Close()
				}
				// every conversation plays the script from its start; stderr
				// says when each starts and when one runs past the script
				logTo := modelserver.WithLog(c.ErrOrStderr())
				if sink != nil {
					h = modelserver.NewServer(s, sink, logTo)
				} else {
					h = modelserver.NewServer(s, nil, logTo)
				}
			default:
				return badInput("one of --script, --cassette or --record is needed")
			}
			l, err := listen(listenAddr)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "http://%s\n", l.Addr())
			srv := &http.Server{Handler: h}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
			if err := srv.Serve(l); err != http.ErrServerClosed {
				return err
			}
			return nil
		},
	}
	serve.Flags().StringVar(&scriptPath, "script", "", "the script of turns to play")
	serve.Flags().StringVar(&listenAddr, "listen", "127.0.0.1:0", "address to listen on")
	serve.Flags().StringVar(&logPath, "log", "", "write every request and response here (JSONL)")
	serve.Flags().StringVar(&record, "record", "", "pass requests through to this provider URL, recording them")
	serve.Flags().StringVar(&cassette, "cassette", "", "the cassette to serve, or to record to with --record")
	c.AddCommand(serve)
	return c
}
