//! Datasets embedded in the binary, so `cargo install` users have them.
//! Origins and licences: `assets/README.md`.

use super::{Dataset, LoadOptions, delimited};
use crate::error::Result;

pub struct Bundled {
    pub name: &'static str,
    pub summary: &'static str,
    pub text: &'static str,
}

pub const BUNDLED: [Bundled; 4] = [
    Bundled {
        name: "iris",
        summary: "Fisher's iris: 150 × 4, 3 species (UCI, via scikit-learn, BSD-3)",
        text: include_str!("../../assets/iris.csv"),
    },
    Bundled {
        name: "wine",
        summary: "Wine recognition: 178 × 13, 3 cultivars (UCI, via scikit-learn, BSD-3)",
        text: include_str!("../../assets/wine.csv"),
    },
    Bundled {
        name: "breast_cancer",
        summary: "Wisconsin diagnostic breast cancer: 569 × 30, 2 classes (UCI, via scikit-learn, BSD-3)",
        text: include_str!("../../assets/breast_cancer.csv"),
    },
    Bundled {
        name: "digits",
        summary: "Handwritten digits 8×8: 1797 × 64, 10 classes (UCI optdigits, via scikit-learn, BSD-3)",
        text: include_str!("../../assets/digits.csv"),
    },
];

/// The dataset the app opens on when none is named.
pub const DEFAULT: &str = "iris";

pub fn find(name: &str) -> Option<&'static Bundled> {
    BUNDLED.iter().find(|b| b.name.eq_ignore_ascii_case(name))
}

/// Reads bundled dataset `b` with the label choice of `opts`.
///
/// # Errors
/// [`crate::Error::Data`] for a label column the dataset does not have.
pub fn load(b: &Bundled, opts: &LoadOptions) -> Result<Dataset> {
    let mut ds = delimited::parse(b.text, &format!("bundled:{}", b.name), opts)?;
    ds.name = b.name.to_string();
    Ok(ds)
}
