package reqinfo

import (
	"errors"
	"net/http/httptest"
	"testing"
)

func TestRouteIsLookedUpOncePerPath(t *testing.T) {
	req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	bare, ok := Route(req)
	if bare == nil || !ok {
		t.Fatal("no route for chat completions")
	}
	info := New()
	req = req.WithContext(With(req.Context(), info))
	first, _ := Route(req)
	info.route = nil // a second lookup would find the route again
	if again, _ := Route(req); again != nil || first != bare {
		t.Fatal("the route was looked up again for the same method and path")
	}
	req.URL.Path = "/v1/embeddings"
	if moved, ok := Route(req); moved == nil || !ok || moved == first {
		t.Fatalf("after the path changed: %v %v", moved, ok)
	}
	req.Method = "DELETE"
	if _, ok := Route(req); ok {
		t.Fatal("DELETE /v1/embeddings has a route")
	}
}

func TestBudgetRefusalOnlyForPricedCalls(t *testing.T) {
	info := New()
	if info.BudgetRefusal(true) != nil {
		t.Fatal("refused without a spent budget")
	}
	spent := errors.New("budget exceeded")
	info.BudgetExceeded = spent
	if info.BudgetRefusal(true) != spent || info.BudgetRefusal(false) != nil {
		t.Fatal("the rule does not refuse exactly the priced calls")
	}
	if !Priced("openai", "gpt-4o-mini") || Priced("ollama", "llama3") {
		t.Fatal("catalog prices: openai gpt-4o-mini priced, ollama llama3 not")
	}
}

func TestPlanKeptUntilDropped(t *testing.T) {
	info := New()
	p := &Plan{Requested: "m"}
	info.SetPlan(p)
	if info.Plan() != p {
		t.Fatal("plan not kept")
	}
	info.DropPlan()
	if info.Plan() != nil {
		t.Fatal("plan not dropped")
	}
	if info.Started() != nil {
		t.Fatal("a new request has a started gateway")
	}
	gw := new(int)
	info.SetStarted(gw)
	if info.Started() != gw {
		t.Fatal("SetStarted not kept")
	}
}
