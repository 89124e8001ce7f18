//! Built-in looks: 512x512 LUT images (GPUImage's layout, 8x8 tiles of a 64^3 cube) shipped in
//! `crates/texelflow/luts/`, each made by this project from the identity LUT with a pipeline of its own
//! filters, written beside it (`Look::recipe`); a test checks that each image is its recipe's
//! output. They run through `lut_cube` (trilinear in the 64^3 cube).

use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::filters::lookup::lut_cube::{CubeKind, CubeLut};
use crate::image::{Image, PixelFormat};

/// One shipped LUT image.
pub struct Look {
    /// The look's name.
    pub name: &'static str,
    /// The LUT image, PNG bytes.
    pub png: &'static [u8],
    /// The pipeline that made the image from `texelflow lut-identity`'s output (CPU twins).
    pub recipe: &'static str,
    cube: OnceLock<Arc<CubeLut>>,
}

impl Look {
    /// A look from its name, image and recipe.
    pub const fn new(name: &'static str, png: &'static [u8], recipe: &'static str) -> Self {
        Self {
            name,
            png,
            recipe,
            cube: OnceLock::new(),
        }
    }

    /// The 64^3 cube of the image, decoded once per process.
    pub fn cube(&self) -> Result<Arc<CubeLut>> {
        if let Some(c) = self.cube.get() {
            return Ok(c.clone());
        }
        let img = image::load_from_memory_with_format(self.png, image::ImageFormat::Png).map_err(
            |e| Error::invalid(format!("built-in LUT `{}` does not decode: {e}", self.name)),
        )?;
        let rgba = img.to_rgba8();
        let image = Image::from_u8(
            rgba.width(),
            rgba.height(),
            PixelFormat::Rgba8,
            rgba.into_raw(),
        )?;
        let cube = Arc::new(cube_of_lookup_image(&image)?);
        Ok(self.cube.get_or_init(|| cube).clone())
    }
}

/// The 64^3 cube a 512x512 lookup image holds: entry (r, g, b) is the texel at
/// ((b % 8) * 64 + r, (b / 8) * 64 + g), over 255.
pub fn cube_of_lookup_image(img: &Image) -> Result<CubeLut> {
    if (img.width(), img.height(), img.format()) != (512, 512, PixelFormat::Rgba8) {
        return Err(Error::invalid(format!(
            "a lookup image is 512x512 RGBA8, got {}x{}",
            img.width(),
            img.height()
        )));
    }
    let px = img.as_u8();
    let mut table = Vec::with_capacity(64 * 64 * 64);
    for b in 0..64usize {
        for g in 0..64usize {
            for r in 0..64usize {
                let i = 4 * (((b / 8) * 64 + g) * 512 + (b % 8) * 64 + r);
                table.push([
                    px[i] as f32 / 255.0,
                    px[i + 1] as f32 / 255.0,
                    px[i + 2] as f32 / 255.0,
                ]);
            }
        }
    }
    Ok(CubeLut {
        title: None,
        kind: CubeKind::ThreeD,
        size: 64,
        domain_min: [0.0; 3],
        domain_max: [1.0; 3],
        table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::lookup::{amatorka, miss_etikate, soft_elegance};

    /// Each shipped image is exactly what its recipe makes of the identity LUT (CPU twins), so
    /// the looks are reproducible and documented; a changed formula shows up here.
    #[test]
    fn shipped_luts_are_their_recipes() {
        for look in [
            &amatorka::LOOK,
            &miss_etikate::LOOK,
            &soft_elegance::LOOK_1,
            &soft_elegance::LOOK_2,
        ] {
            let p = crate::Pipeline::parse(look.recipe, &mut |_| Err(Error::invalid("no images")))
                .expect("recipe parses");
            let made = p
                .run(
                    &crate::Backend::Cpu,
                    &crate::filters::lookup::identity_lut(),
                )
                .expect("recipe runs")
                .into_image()
                .expect("an image");
            let shipped = image::load_from_memory(look.png)
                .expect("decodes")
                .to_rgba8();
            assert!(
                made.as_u8() == shipped.as_raw().as_slice(),
                "crates/texelflow/luts/{}.png is not its recipe's output",
                look.name
            );
            assert_eq!(look.cube().expect("cube").table.len(), 64 * 64 * 64);
        }
    }
}
