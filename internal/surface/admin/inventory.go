package admin

import "github.com/modelgate/modelgate/internal/domain/vmodels"

// ModelInventoryEntry is one row of GET /admin/models as the admin API
// answers it: the inventory row, with the deciding policy spelled out as
// GET /admin/virtual-models shows it.
type ModelInventoryEntry struct {
	vmodels.InventoryEntry
	// Access says who may use the model; it replaces the row's own.
	Access ModelAccessView `json:"access"`
}

// ModelAccessView is the access object of an inventory row, its override
// spelled out.
type ModelAccessView struct {
	vmodels.Access
	// Override is the virtual model row that decides, every field
	// present, or null; it replaces the access object's own.
	Override *VirtualModelView `json:"override"`
}

// inventoryView spells out rows for the admin API.
func inventoryView(rows []vmodels.InventoryEntry) []ModelInventoryEntry {
	out := make([]ModelInventoryEntry, len(rows))
	for i, r := range rows {
		a := ModelAccessView{Access: r.Access}
		if a.UserPaths == nil {
			a.UserPaths = []string{}
		}
		if r.Access.Override != nil {
			v := virtualModelView(*r.Access.Override)
			a.Override = &v
		}
		out[i] = ModelInventoryEntry{InventoryEntry: r, Access: a}
	}
	return out
}
