//! JPEG files for the decode tests, made by libjpeg-turbo's TurboJPEG 3 API (restart
//! intervals, which the `turbojpeg` crate does not set).

/// How a test file is encoded.
#[derive(Clone, Copy, Debug)]
pub struct TjParams {
    /// `TJSAMP_*` (`TJSAMP_GRAY`: one component).
    pub sub: i32,
    pub quality: i32,
    pub progressive: bool,
    /// MCU blocks per restart interval (0: none).
    pub restart_blocks: i32,
    /// MCU rows per restart interval (0: none).
    pub restart_rows: i32,
}

/// `src` (`w` x `h`, grey or RGB as `p.sub` says) as a JPEG file.
pub fn tj_compress(src: &[u8], w: usize, h: usize, p: TjParams) -> Vec<u8> {
    use turbojpeg_sys::*;
    let grey = p.sub == TJSAMP_TJSAMP_GRAY;
    let ch = if grey { 1 } else { 3 };
    assert_eq!(src.len(), w * h * ch, "source size");
    let format = if grey { TJPF_TJPF_GRAY } else { TJPF_TJPF_RGB };
    // SAFETY: TurboJPEG's documented use: a handle, its parameters, one compression into a
    // buffer it allocates (freed with tj3Free after copying), the handle destroyed.
    unsafe {
        let handle = tj3Init(TJINIT_TJINIT_COMPRESS as i32);
        assert!(!handle.is_null(), "tj3Init");
        for (param, value) in [
            (TJPARAM_TJPARAM_QUALITY, p.quality),
            (TJPARAM_TJPARAM_SUBSAMP, p.sub),
            (TJPARAM_TJPARAM_PROGRESSIVE, p.progressive as i32),
            (TJPARAM_TJPARAM_RESTARTBLOCKS, p.restart_blocks),
            (TJPARAM_TJPARAM_RESTARTROWS, p.restart_rows),
        ] {
            if value != 0 || param == TJPARAM_TJPARAM_SUBSAMP {
                assert_eq!(tj3Set(handle, param as i32, value), 0, "tj3Set {param}");
            }
        }
        let mut out: *mut u8 = std::ptr::null_mut();
        let mut size: size_t = 0;
        let rc = tj3Compress8(
            handle,
            src.as_ptr(),
            w as i32,
            (w * ch) as i32,
            h as i32,
            format,
            &mut out,
            &mut size,
        );
        assert_eq!(rc, 0, "tj3Compress8");
        let bytes = std::slice::from_raw_parts(out, size as usize).to_vec();
        tj3Free(out as *mut _);
        tj3Destroy(handle);
        bytes
    }
}
