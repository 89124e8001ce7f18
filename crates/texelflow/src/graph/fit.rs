//! How a blend's second (or third) image is fitted to the first image's size
//! (`fit=stretch|fill|fit|center` on every two-input filter, `params::FIT_OPTIONS`, read by
//! `Pipeline::parse`); the steps themselves are geometry filters (`filters::geometry::fit`),
//! which the graph inserts through its `Catalogue`.

use crate::error::{Error, Result};

/// How an extra image of another size is brought to the input's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fit {
    /// Sizes must match: a different size is an error.
    #[default]
    None,
    /// Resized (bilinear) to exactly the input's size; the aspect ratio may change.
    Stretch,
    /// Scaled to cover the input, keeping its aspect ratio, then centre-cropped.
    Fill,
    /// Scaled to fit inside the input, keeping its aspect ratio, centred, transparent borders.
    Fit,
    /// Not scaled: centred, cropped where larger and transparent-padded where smaller.
    Center,
}

impl Fit {
    /// From the `fit` parameter's option name.
    pub fn parse(name: &str) -> Result<Fit> {
        Ok(match name {
            "none" => Fit::None,
            "stretch" => Fit::Stretch,
            "fill" => Fit::Fill,
            "fit" => Fit::Fit,
            "center" => Fit::Center,
            other => {
                return Err(Error::BadParam {
                    filter: "blend".into(),
                    param: "fit".into(),
                    message: format!("`{other}` is not one of none, stretch, fill, fit, center"),
                })
            }
        })
    }
}
