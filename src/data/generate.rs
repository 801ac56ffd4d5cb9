//! Generators (STUB — being written).
use super::Dataset;
use crate::error::Result;
pub fn check_name(_name: &str) -> Result<()> {
    todo!()
}
pub fn generate(_name: &str, _params: &[(String, String)]) -> Result<Dataset> {
    todo!()
}
