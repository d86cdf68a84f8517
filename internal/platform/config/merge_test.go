package config

import (
	"reflect"
	"testing"
)

func TestOverlayScalars(t *testing.T) {
	c := Config{
		Storage:      "low",
		MasterKey:    "keep",
		Server:       Server{UserPathHeader: "X-Low", MaxRequestBodyBytes: 5},
		Admin:        Admin{UIEnabled: Ptr(true), LegacyAlias: "auto"},
		Logging:      Logging{RetentionDays: Ptr(30)},
		Entitlements: []string{"quota_templates"},
		Failover:     map[string][]string{"a": {"b"}},
	}
	c.Overlay(Config{
		Storage:      "high",
		Server:       Server{MaxRequestBodyBytes: 9},
		Admin:        Admin{UIEnabled: Ptr(false)},
		Logging:      Logging{RetentionDays: Ptr(0)},
		Entitlements: []string{},
	})
	want := Config{
		Storage:      "high",
		MasterKey:    "keep",
		Server:       Server{UserPathHeader: "X-Low", MaxRequestBodyBytes: 9},
		Admin:        Admin{UIEnabled: Ptr(false), LegacyAlias: "auto"},
		Logging:      Logging{RetentionDays: Ptr(0)},
		Entitlements: []string{},
		Failover:     map[string][]string{"a": {"b"}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
}

func TestOverlayProviders(t *testing.T) {
	tests := []struct {
		name      string
		low, high Providers
		want      Providers
	}{
		{
			name: "field-wise merge by name",
			low:  Providers{{Name: "openai", Type: "openai", BaseURL: "https://yaml/v1", Models: []string{"m"}, TimeoutSeconds: 60}},
			high: Providers{{Name: "openai", Type: "openai", APIKey: "env"}},
			want: Providers{{Name: "openai", Type: "openai", APIKey: "env", BaseURL: "https://yaml/v1", Models: []string{"m"}, TimeoutSeconds: 60}},
		},
		{
			name: "type never replaces a set type",
			low:  Providers{{Name: "openai", Type: "azure", BaseURL: "https://az"}},
			high: Providers{{Name: "openai", Type: "openai", APIKey: "k"}},
			want: Providers{{Name: "openai", Type: "azure", BaseURL: "https://az", APIKey: "k"}},
		},
		{
			name: "type fills an empty type",
			low:  Providers{{Name: "openai", APIKey: "y"}},
			high: Providers{{Name: "openai", Type: "openai", APIKey: "k"}},
			want: Providers{{Name: "openai", Type: "openai", APIKey: "k"}},
		},
		{
			name: "new names appended in order",
			low:  Providers{{Name: "b"}, {Name: "a"}},
			high: Providers{{Name: "z"}, {Name: "a", APIKey: "k"}, {Name: "c"}},
			want: Providers{{Name: "b"}, {Name: "a", APIKey: "k"}, {Name: "z"}, {Name: "c"}},
		},
		{
			name: "empty high keeps low",
			low:  Providers{{Name: "a"}},
			want: Providers{{Name: "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low := Config{Providers: tt.low}
			lowCopy := append(Providers(nil), tt.low...)
			low.Overlay(Config{Providers: tt.high})
			if !reflect.DeepEqual(low.Providers, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", low.Providers, tt.want)
			}
			if !reflect.DeepEqual(tt.low, lowCopy) {
				t.Fatalf("overlay modified the original slice: %+v", tt.low)
			}
		})
	}
}
