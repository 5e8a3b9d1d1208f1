// Package modelserver is the scripted model server: a fake model endpoint that
// closed agents (Claude Code, Codex, Gemini CLI, opencode) talk to as if it
// were their provider. It speaks the Anthropic Messages API, the OpenAI
// Responses API and Gemini's streamGenerateContent, plays a script of
// turns, records every request and response, and can record a real
// provider's answers to a cassette and serve them back.
package modelserver
