package dataset

import (
	"bytes"
	_ "embed"
	"fmt"
)

// The UCI file, byte-for-byte (19889 bytes, SHA-256
// 402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64).
//
//go:embed breast-cancer-wisconsin.data
var breastCancerData []byte

// BreastCancerNotice is the licence and provenance note shipped with the
// embedded Breast Cancer Wisconsin file (breast-cancer-wisconsin.LICENSE).
//
//go:embed breast-cancer-wisconsin.LICENSE
var BreastCancerNotice string

// BreastCancerFile is the name of the embedded file, used in error messages.
const BreastCancerFile = "breast-cancer-wisconsin.data"

// BreastCancerSHA256 is the SHA-256 of the embedded file as UCI publishes it.
const BreastCancerSHA256 = "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64"

// BreastCancerCitation is the citation to give when using BreastCancer
// (licence: CC BY 4.0).
const BreastCancerCitation = "Wolberg, W. (1992). Breast Cancer Wisconsin (Original) [Dataset]. " +
	"UCI Machine Learning Repository. https://doi.org/10.24432/C5HP4Z " +
	"(licence CC BY 4.0; https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original)"

// breastCancerOptions is the preprocessing of docs/design.md §2.9: drop the id
// (column 1), label in column 11, '?' imputed with the column median,
// features z-scored.
var breastCancerOptions = CSVOptions{
	LabelColumn: 11,
	Header:      HeaderAbsent,
	Missing:     "?",
	Impute:      ImputeMedian,
	DropColumns: []int{1},
	Standardize: true,
}

// BreastCancer returns the embedded UCI Breast Cancer Wisconsin (Original)
// data set, preprocessed as the package documentation describes: N = 699,
// D = 9 z-scored features, the 16 missing "Bare Nuclei" values set to the
// column median (1) before z-scoring, ClassNames = ["2", "4"] (benign,
// malignant) so that Binary labels malignant +1. Each call returns a fresh
// copy that the caller may modify.
func BreastCancer() (*Dataset, error) {
	ds, err := ParseCSV(bytes.NewReader(breastCancerData), BreastCancerFile, breastCancerOptions)
	if err != nil {
		return nil, fmt.Errorf("dataset: embedded breast-cancer data: %w", err)
	}
	ds.Name = SpecBreastCancer
	ds.Source = "UCI Breast Cancer Wisconsin (Original), embedded " + BreastCancerFile +
		"; 9 features (id and class columns dropped), 16 missing values in column 7 imputed with the column median (1), z-scored (population std); class 4 (malignant) = +1, class 2 (benign) = -1. " +
		BreastCancerCitation
	return ds, nil
}
