package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/internal/health"
	"github.com/hygiene-dev/hygiene/internal/httpapi"
)

// The OpenAPI document lists exactly the routes each listener serves: the
// sanitize listener's (package httpapi's and the probes) on its server,
// the metrics listener's (package health's) on its own; and the sanitize
// listener answers GET /openapi.json with it.
func TestOpenAPIListsTheServedRoutes(t *testing.T) {
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(schemas.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 2 {
		t.Fatalf("the document names %d servers; want the sanitize and the metrics listener", len(doc.Servers))
	}
	sanitizeURL, metricsURL := doc.Servers[0].URL, doc.Servers[1].URL
	listed := map[string][]string{} // server URL -> "METHOD /path"
	for path, item := range doc.Paths {
		servers := []string{sanitizeURL, metricsURL}
		if raw, ok := item["servers"]; ok {
			var own []struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(raw, &own); err != nil {
				t.Fatal(err)
			}
			servers = servers[:0]
			for _, s := range own {
				servers = append(servers, s.URL)
			}
		}
		for method := range item {
			if method == "servers" || method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			for _, s := range servers {
				listed[s] = append(listed[s], strings.ToUpper(method)+" "+path)
			}
		}
	}
	served := map[string][]string{
		sanitizeURL: append(httpapi.Routes(), probeRoutes...),
		metricsURL:  health.Routes(),
	}
	for _, url := range []string{sanitizeURL, metricsURL} {
		slices.Sort(listed[url])
		slices.Sort(served[url])
		if !slices.Equal(listed[url], served[url]) {
			t.Errorf("%s: the OpenAPI document lists %v; the listener serves %v", url, listed[url], served[url])
		}
	}

	h := sanitizeHandler(httpapi.Config{MaxBodyBytes: 1 << 20, MaxConcurrent: 1}, nil, nil, nil, http.NotFoundHandler())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", httpapi.OpenAPIPath, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(body, schemas.OpenAPI()) {
		t.Errorf("GET %s: %d %s, %d bytes; want 200 and the document", httpapi.OpenAPIPath, rec.Code, rec.Header().Get("Content-Type"), len(body))
	}
}
