package compact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tmemhq/tmem/templates"
)

// OpenAI is a Summarizer that calls any OpenAI-compatible chat-completions
// endpoint (OpenAI, a local llama.cpp or Ollama server, a gateway).
type OpenAI struct {
	BaseURL   string // e.g. https://api.openai.com/v1
	Model     string
	APIKey    string // sent as a bearer token when not empty
	Timeout   time.Duration
	Templates templates.Overrides // the workspace's prompt template overrides; may be nil
	Client    *http.Client        // nil means http.DefaultClient
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Summarize implements Summarizer.
func (o OpenAI) Summarize(ctx context.Context, req Request) (string, error) {
	if o.BaseURL == "" || o.Model == "" {
		return "", errors.New("openai summarizer: base URL and model are required")
	}
	body, err := o.requestBody(req)
	if err != nil {
		return "", err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := o.post(ctx, body, timeout)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return readAnswer(resp, OutputCap(req))
}

// requestBody is the chat-completions request for req's prompt.
func (o OpenAI) requestBody(req Request) ([]byte, error) {
	prompt, err := Prompt(o.Templates, req)
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(chatRequest{Model: o.Model, Messages: []chatMessage{
		{Role: "system", Content: "You compact an AI teammate's Markdown memory. Answer with the requested Markdown only."},
		{Role: "user", Content: prompt},
	}})
	return body, nil
}

// post sends body to the endpoint; ctx carries the timeout, which the
// error names when it ran out.
func (o OpenAI) post(ctx context.Context, body []byte, timeout time.Duration) (*http.Response, error) {
	url := strings.TrimRight(o.BaseURL, "/") + "/chat/completions"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai summarizer: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(hr)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("openai summarizer: timed out after %s", timeout)
		}
		return nil, fmt.Errorf("openai summarizer: %w", err)
	}
	return resp, nil
}

// readAnswer reads the response, at most what an answer of outCap bytes
// takes, and returns the first choice's text, cleaned.
func readAnswer(resp *http.Response, outCap int) (string, error) {
	limit := int64(2*outCap + 64<<10) // the answer, JSON-escaped, and the envelope
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", fmt.Errorf("openai summarizer: read response: %w", err)
	}
	if int64(len(raw)) > limit {
		return "", fmt.Errorf("openai summarizer: %w: the response is over %d bytes", errOverCap, limit)
	}
	var cr chatResponse
	jerr := json.Unmarshal(raw, &cr)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("openai summarizer: %s: %s", resp.Status, errorMessage(raw, cr, jerr))
	}
	if jerr != nil {
		return "", fmt.Errorf("openai summarizer: %w: response is not chat-completions JSON: %v", ErrInvalidOutput, jerr)
	}
	if len(cr.Choices) == 0 {
		return "", fmt.Errorf("openai summarizer: %w: no choices", ErrInvalidOutput)
	}
	if out := cr.Choices[0].Message.Content; len(out) > outCap {
		return "", fmt.Errorf("openai summarizer: %w of %d bytes", errOverCap, outCap)
	}
	return cleanOutput(cr.Choices[0].Message.Content), nil
}

// errorMessage is what a failed request's body says, in at most 200
// bytes: the API's error message when it gives one (cr, decoded from raw
// unless jerr), else the body.
func errorMessage(raw []byte, cr chatResponse, jerr error) string {
	msg := strings.TrimSpace(string(raw))
	if jerr == nil && cr.Error != nil {
		msg = cr.Error.Message
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
