package place_test

import (
	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/report"
)

func init() { place.SetTextView(report.PlaceText) }
