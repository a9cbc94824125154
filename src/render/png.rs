//! PNG output: a [`Raster`] as an indexed picture, or any RGB picture.

use std::io::Write;

use super::RenderError;
use super::raster::{PALETTE, Raster};

/// Writes `raster` as an 8-bit indexed PNG with the fixed [`PALETTE`].
///
/// # Errors
/// Write and encoder errors.
pub fn write_png<W: Write>(out: W, raster: &Raster) -> Result<(), RenderError> {
    let mut encoder = ::png::Encoder::new(out, raster.width(), raster.height());
    encoder.set_color(::png::ColorType::Indexed);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_palette(PALETTE.iter().flatten().copied().collect::<Vec<u8>>());
    let mut writer = encoder.write_header()?;
    writer.write_image_data(raster.pixels())?;
    writer.finish()?;
    Ok(())
}

/// Writes a `width x height` RGB picture (`rgb`: 3 bytes per pixel, row by row) as a PNG.
///
/// # Errors
/// [`RenderError::Invalid`] when `rgb` is not `3 * width * height` bytes; write and encoder
/// errors.
pub fn write_rgb_png<W: Write>(
    out: W,
    width: u32,
    height: u32,
    rgb: &[u8],
) -> Result<(), RenderError> {
    if rgb.len() as u64 != 3 * u64::from(width) * u64::from(height) {
        return Err(RenderError::Invalid(format!(
            "{} bytes for a {width} x {height} RGB picture",
            rgb.len()
        )));
    }
    let mut encoder = ::png::Encoder::new(out, width, height);
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(())
}
