//! Delimited text (STUB — being written).
use super::{Dataset, LoadOptions};
use crate::error::Result;
pub fn parse(_text: &str, _origin: &str, _opts: &LoadOptions) -> Result<Dataset> {
    todo!()
}
