// NAME: a Thirty-One Arena bot in Go that speaks the arena's JSON-lines protocol
// (docs/PROTOCOL.md in the arena's repository).
//
// It reads one message per line on stdin and answers on stdout, one line each:
//
//	{"type":"hello",...}   -> {"type":"hello","name":"NAME","version":"0.1.0","protocol":1}
//	{"type":"decide",...}  -> {"type":"action","id":ID,"action":"ONE OF legal"}
//	{"type":"bye"}         -> exit
//
// Everything else (match_start, events, match_end, error) needs no answer. Its choice is
// random: replace choose with your strategy. Debug output goes to stderr, never stdout.
package main

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
)

// message holds the fields of the referee's messages this bot reads.
type message struct {
	Type        string         `json:"type"`
	ID          int64          `json:"id"`
	Legal       []string       `json:"legal"`
	Observation map[string]any `json:"observation"`
}

// choose is your strategy: one of legal, exactly as written.
func choose(legal []string, observation map[string]any, rng *rand.Rand) string {
	return legal[rng.Intn(len(legal))]
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20) // a line may hold 64 KiB
	out := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(31))
	send := func(reply any) {
		line, _ := json.Marshal(reply)
		out.Write(append(line, '\n'))
		out.Flush()
	}
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch m.Type {
		case "hello":
			send(map[string]any{"type": "hello", "name": "NAME", "version": "0.1.0", "protocol": 1})
		case "decide":
			if len(m.Legal) > 0 {
				send(map[string]any{"type": "action", "id": m.ID, "action": choose(m.Legal, m.Observation, rng)})
			}
		case "bye":
			return
		}
	}
}
