// Package dataset holds the data sets pairgossip runs on: one data point per
// graph node, as a dense N×D float64 matrix plus a class index per row.
//
// # Built-in data
//
// BreastCancer returns the UCI "Breast Cancer Wisconsin (Original)" data set,
// which is embedded in the binary (go:embed), unmodified, so that the default
// run needs no download. Its preprocessing follows docs/design.md §2.9:
//
//   - all 699 rows are kept, so n = 699 as in the paper;
//   - the 9 feature columns (file columns 2–10) are used; the sample id
//     (column 1, not unique) and the class (column 11) are not features;
//   - the 16 missing values ('?', all in column 7, "Bare Nuclei") are filled
//     with the median of that column's 683 observed values, which is 1;
//   - every feature is z-scored with the population standard deviation
//     (divide by n, not n−1);
//   - class 4 (malignant) is the positive class (+1 in Dataset.Binary) and
//     class 2 (benign) the negative one (−1): 241 positives, 458 negatives.
//
// The data are licensed CC BY 4.0; give BreastCancerCitation when you use
// them. The file breast-cancer-wisconsin.LICENSE next to the data file (also
// embedded, as BreastCancerNotice) records the source, licence and checksum.
//
// Synthetic generates the paper's metric-learning set (Sec. 4): a mixture of
// K Gaussians in R^D whose means lie in a random S-dimensional subspace, with
// a shared isotropic covariance σ²I. The construction is spelled out on
// SyntheticConfig; every random draw comes from the project's seeded streams
// (internal/rng), so a seed fixes the data set bit for bit.
//
// For large n (10⁷ points and more) SyntheticMetric draws the same model and
// SyntheticAUC a two-Gaussian binary set (see SyntheticAUCConfig for the
// exact model), both in parallel over blocks of rows from counter-based
// streams keyed by (seed, row) (internal/crng), so the data are bit-identical
// for any number of workers. Load names them "synthetic-metric" and
// "synthetic-auc" and sizes them with LoadOptions.N, Dim and Classes;
// "synthetic" stays the paper's set from the sequential generator.
//
// # Users' own data
//
// LoadCSV / ParseCSV read delimited text (comma- or whitespace-separated), and
// LoadLIBSVM / ParseLIBSVM read the sparse LIBSVM format. LoadNPY and LoadNPZ
// read NumPy's binary .npy files (features X.npy with labels y.npy beside
// them) and .npz archives (arrays X and y), memory-mapping the features when
// they are float64 in C order. Load picks one of the built-in sets or a file
// by a single specification string. The parsers are
// strict: every problem is reported as a *ParseError naming the file and, where
// there is one, the 1-based line and column. The embedded breast-cancer file
// goes through the same CSV parser.
//
// Non-finite values (NaN, ±Inf, or numbers that overflow float64) are
// rejected; the only way to mark a missing value is the missing-value token
// (CSVOptions.Missing, "?" by default, or an empty comma-separated field).
// Missing values are imputed with the column median (default) or mean
// computed from the observed values of that column, or rejected.
//
// # Labels and classes
//
// Labels are kept as text and mapped to class indices 0..K−1. If every label
// parses as a finite number, labels with equal values are the same class
// ("1", "1.0" and "+1" are one class, named by the first spelling seen) and
// class indices follow increasing numeric value; otherwise class indices
// follow the lexicographic (byte-wise) order of the label text. Pairwise
// objectives need at least two classes, so a file with a single class is an
// error. For AUC, Dataset.Binary turns a two-class data set into ±1 labels;
// the positive class is the one whose label is the larger number ("2"/"4" →
// 4, "0"/"1" → 1, "-1"/"+1" → +1), or the lexicographically larger text if
// the labels are not both numeric.
//
// # Standardization
//
// Standardize (always on for BreastCancer, optional for files) z-scores each
// feature with the population standard deviation. A constant column (all
// values equal) has no spread to divide by; it becomes all zeros (centred, not
// scaled). This is harmless for pairwise objectives, which only use x_i − x_j.
// The computation is exact-scaled by a power of two, so columns with values
// near the float64 range do not overflow.
//
// # Size limits
//
// Parsing refuses inputs larger than DefaultMaxFileBytes and data sets with
// more than DefaultMaxElements matrix entries (N·D), with an error saying how
// much memory the matrix would need. Both limits can be changed per call
// through the options (MaxFileBytes, MaxElements).
package dataset
