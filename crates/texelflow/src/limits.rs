//! How much memory and work one load or run may take: checked before anything is allocated,
//! so an absurd header (a decompression bomb), an absurd size asked of a filter or an absurd
//! spec is an error, never an aborted process.
//!
//! Memory (host RAM, bytes) is estimated as:
//!
//! - decoding a `w` x `h` file: `w × h × B × 2`, where `B` is 4 (8-bit files, decoded to RGBA8)
//!   or 8 (16-bit PNG/TIFF, decoded to RGBA16): the decoder's own buffer and the RGBA copy;
//! - decoding a JPEG at a DCT scale (shrink-on-load, `LoadOptions::min_size`): the same of the
//!   decoded size, plus for a progressive file libjpeg's coefficient buffer at full size
//!   (2 bytes × components × the sides rounded up to 32);
//! - a run on the GPU: the sources, plus `3 ×` the largest image of the graph in its GPU layout
//!   (the upload staging copy, the read-back staging copy, the result);
//! - a run on the CPU reference: twice the sources (the run's own copy), plus twice the largest
//!   image the graph makes (its input and output live at once) and 16 bytes a pixel of it (a
//!   float RGBA temporary, as the Gaussian blur's twin keeps);
//! - a run in tiles or bands on the GPU: its sources and output whole, plus twice the tiles in
//!   flight (staging copies in and out), or a streamed run's band estimate;
//! - a file's metadata: at most `MAX_METADATA_BYTES` whatever the limits.
//!
//! The process's own memory (code, the GPU driver: about 90-120 MiB on lavapipe, 25 MiB on the
//! CPU reference) comes on top of these estimates.
//!
//! An image may have at most `max_pixels` pixels (default 2^30, a 32768 x 32768 image: the
//! largest texelflow's own filters make, so anything it writes it can read back), and the
//! estimate must stay within `max_memory` (default: the machine's physical memory, from
//! `/proc/meminfo`; 8 GiB where that cannot be read). A graph may have at most `max_nodes`
//! filter nodes (default 10000, after composite filters expand).
//!
//! There are no process-wide values: a load takes its limits from `LoadOptions::limits`, a run
//! from `RunOptions::limits` (both `Limits::default()` unless set); the CLI fills both from
//! `--max-pixels` and `--max-memory`. Building a graph stops at `DEFAULT_MAX_NODES` nodes
//! whatever the limits say (a run may set a lower `max_nodes`).

use crate::error::{Error, Result};

/// Resource limits of loads and runs (see the module docs for the formulas).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most pixels one image may have (decoded, or made by a filter).
    pub max_pixels: u64,
    /// Most bytes of host memory a load or run is estimated to need.
    pub max_memory: u64,
    /// Most filter nodes one graph may have.
    pub max_nodes: usize,
}

/// Default `max_pixels`: 2^30, a 32768 x 32768 image.
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 30;
/// Default `max_nodes`.
pub const DEFAULT_MAX_NODES: usize = 10_000;
/// Most bytes a file's metadata may take as it is read, whatever the limits (a PNG's
/// compressed ICC profile, EXIF and text chunks, decompressed): a small file cannot inflate
/// into a large allocation before its pixels are checked (a real ICC profile is a few hundred
/// KiB at most). Part of the constant a run's memory exceeds `max_memory` by.
pub const MAX_METADATA_BYTES: u64 = 16 << 20;

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`), if known.
pub fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

impl Default for Limits {
    /// 2^30 pixels, the machine's physical memory (8 GiB when unknown), 10000 nodes.
    fn default() -> Self {
        Self {
            max_pixels: DEFAULT_MAX_PIXELS,
            max_memory: {
                // read once: `RunOptions::default()` is made per tile
                static MEMORY: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
                *MEMORY.get_or_init(|| physical_memory().unwrap_or(8 << 30))
            },
            max_nodes: DEFAULT_MAX_NODES,
        }
    }
}

impl Limits {
    /// Checks a `width` x `height` image to be decoded with `bytes_per_pixel` (4 or 8) against
    /// the limits; the message says what to change.
    pub fn check_decode(
        &self,
        width: u32,
        height: u32,
        bytes_per_pixel: u64,
    ) -> std::result::Result<(), String> {
        self.check_decode_pixels(width, height)?;
        let pixels = width as u64 * height as u64;
        let need = pixels.saturating_mul(bytes_per_pixel).saturating_mul(2);
        if need > self.max_memory {
            return Err(format!("{width}x{height} needs about {} to decode, more than the limit of {} (--max-memory)", human_bytes(need), human_bytes(self.max_memory)));
        }
        Ok(())
    }

    /// Checks the pixels of a `width` x `height` image to be decoded (by rows: its memory is
    /// the streaming formula's, checked by the caller).
    pub fn check_decode_pixels(&self, width: u32, height: u32) -> std::result::Result<(), String> {
        let pixels = width as u64 * height as u64;
        if pixels > self.max_pixels {
            return Err(format!(
                "{width}x{height} is {pixels} pixels, more than the limit of {} (--max-pixels)",
                self.max_pixels
            ));
        }
        Ok(())
    }

    /// Checks an image a run would make, of `pixels` pixels.
    pub fn check_pixels(&self, what: &str, width: u32, height: u32) -> Result<()> {
        let pixels = width as u64 * height as u64;
        if pixels > self.max_pixels {
            return Err(Error::Limit(format!("{what} would be {width}x{height}, {pixels} pixels, more than the limit of {} (--max-pixels)", self.max_pixels)));
        }
        Ok(())
    }

    /// Checks an estimate of a run's memory.
    pub fn check_memory(&self, what: &str, bytes: u64) -> Result<()> {
        if bytes > self.max_memory {
            return Err(Error::Limit(format!(
                "{what} needs about {}, more than the limit of {} (--max-memory)",
                human_bytes(bytes),
                human_bytes(self.max_memory)
            )));
        }
        Ok(())
    }
}

/// `1.5 GiB`, `300 MiB`, `12 KiB`, `17 bytes`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, size) in UNITS {
        if b >= size {
            return format!("{:.1} {name}", b as f64 / size as f64);
        }
    }
    format!("{b} bytes")
}

/// Parses `4G`, `512M`, `100k`, `2GiB`, `1e9` or a plain byte count.
pub fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: give a size such as 4G, 512M or 1000000"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit `{unit}` (use K, M, G or T)"
            ))
        }
    };
    let v = n * mult as f64;
    if !v.is_finite() || v < 1.0 || v > u64::MAX as f64 {
        return Err(format!("`{text}` is not a usable size"));
    }
    Ok(v as u64)
}

/// Parses a pixel count: `1e9`, `400M`, `20000x20000` or a plain number.
pub fn parse_pixels(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    if let Some((w, h)) = t.split_once(['x', 'X']) {
        let (w, h): (u64, u64) = (
            w.trim()
                .parse()
                .map_err(|_| format!("`{text}`: give WIDTHxHEIGHT or a count"))?,
            h.trim()
                .parse()
                .map_err(|_| format!("`{text}`: give WIDTHxHEIGHT or a count"))?,
        );
        return w
            .checked_mul(h)
            .filter(|&p| p > 0)
            .ok_or_else(|| format!("`{text}` is not a usable pixel count"));
    }
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        Some((i, 'g' | 'G')) => (&t[..i], 1e9),
        _ => (t, 1.0),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: give a pixel count such as 400M, 1e9 or 20000x20000"))?;
    let v = n * mult;
    if !v.is_finite() || v < 1.0 || v > u64::MAX as f64 {
        return Err(format!("`{text}` is not a usable pixel count"));
    }
    Ok(v as u64)
}

/// A zero-filled byte vector of `n` bytes, or an error naming `what` when the allocation fails
/// (instead of aborting the process).
pub fn try_zeroed(n: usize, what: &str) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::Limit(format!(
            "could not allocate {} for {what}",
            human_bytes(n as u64)
        ))
    })?;
    v.resize(n, 0);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_bytes("4G"), Ok(4 << 30));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("4Q").is_err());
        assert!(parse_bytes("0").is_err());
        assert_eq!(parse_pixels("20000x20000"), Ok(400_000_000));
        assert_eq!(parse_pixels("400M"), Ok(400_000_000));
        assert_eq!(parse_pixels("1e9"), Ok(1_000_000_000));
        assert!(parse_pixels("-5").is_err());
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }

    #[test]
    fn a_bomb_is_refused_by_arithmetic_alone() {
        let l = Limits {
            max_pixels: DEFAULT_MAX_PIXELS,
            max_memory: 8 << 30,
            max_nodes: 10,
        };
        assert!(l
            .check_decode(100_000, 100_000, 4)
            .unwrap_err()
            .contains("--max-pixels"));
        assert!(l.check_decode(20_000, 20_000, 4).is_ok());
        assert!(l
            .check_decode(32768, 32768, 8)
            .unwrap_err()
            .contains("--max-memory"));
        assert!(l.check_decode(u32::MAX, u32::MAX, 8).is_err());
    }
}
