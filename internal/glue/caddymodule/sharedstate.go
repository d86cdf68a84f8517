package caddymodule

import (
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
)

// spendStore is where budget spend is shared between gateway processes:
// Redis when the configuration names one, else nil (each process counts
// in memory).
func (a *App) spendStore() budgets.SpendStore {
	if a.redis == nil {
		return nil
	}
	return redisstore.NewBudgets(a.redis)
}

// pinStore is where session pins are shared between gateway processes:
// Redis when the configuration names one, else nil (memory only).
func (a *App) pinStore() vmodels.PinStore {
	if a.redis == nil {
		return nil
	}
	return redisstore.NewPins(a.redis)
}
