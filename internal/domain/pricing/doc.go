// Package pricing holds the operator's price overrides (prices per
// provider and model that replace the catalog's for every new request,
// catalog.CostSourceOverride) and the recalculation that reprices stored
// usage records with the prices in force.
package pricing
