// Command tlog-check verifies svc's transparency log with Go's own implementation
// (golang.org/x/mod/sumdb/tlog and sumdb/note), independent of svc's code. It reads one JSON
// document on stdin and prints "ok", or each failure on its own line and exits 1.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Leaf  string   `json:"leaf"`
	Path  []string `json:"path"`
	Root  string   `json:"root"`
}

type consistency struct {
	From     int64    `json:"from"`
	To       int64    `json:"to"`
	FromRoot string   `json:"fromRoot"`
	ToRoot   string   `json:"toRoot"`
	Proof    []string `json:"proof"`
}

type input struct {
	VerifierKey string        `json:"verifierKey"`
	Checkpoints []string      `json:"checkpoints"`
	Inclusion   []inclusion   `json:"inclusion"`
	Consistency []consistency `json:"consistency"`
}

func hash(s string) tlog.Hash {
	var h tlog.Hash
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != len(h) {
		fmt.Println("bad hash", s)
		os.Exit(2)
	}
	copy(h[:], b)
	return h
}

func hashes(list []string) []tlog.Hash {
	out := make([]tlog.Hash, 0, len(list))
	for _, s := range list {
		out = append(out, hash(s))
	}
	return out
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Println("bad input:", err)
		os.Exit(2)
	}
	failed := false
	verifier, err := note.NewVerifier(in.VerifierKey)
	if err != nil {
		fmt.Println("verifier key:", err)
		os.Exit(1)
	}
	for i, text := range in.Checkpoints {
		if _, err := note.Open([]byte(text), note.VerifierList(verifier)); err != nil {
			fmt.Printf("checkpoint %d: %v\n", i, err)
			failed = true
		}
	}
	for i, p := range in.Inclusion {
		leaf, err := base64.StdEncoding.DecodeString(p.Leaf)
		if err != nil {
			fmt.Printf("inclusion %d: leaf: %v\n", i, err)
			failed = true
			continue
		}
		if err := tlog.CheckRecord(hashes(p.Path), p.Size, hash(p.Root), p.Index, tlog.RecordHash(leaf)); err != nil {
			fmt.Printf("inclusion %d: %v\n", i, err)
			failed = true
		}
	}
	for i, p := range in.Consistency {
		if err := tlog.CheckTree(hashes(p.Proof), p.To, hash(p.ToRoot), p.From, hash(p.FromRoot)); err != nil {
			fmt.Printf("consistency %d: %v\n", i, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Println("ok")
}
