; benchmark generated from rust API
(set-info :status unknown)
(declare-fun c0 () Int)
(declare-fun v2 () Bool)
(declare-fun v3 () Bool)
(declare-fun v5 () Bool)
(declare-fun v6 () Bool)
(declare-fun v9 () Bool)
(declare-fun v8 () Bool)
(declare-fun v7 () Bool)
(declare-fun v10 () Bool)
(declare-fun v11 () Bool)
(declare-fun v12 () Bool)
(declare-fun v13 () Bool)
(declare-fun v14 () Bool)
(assert
 (> c0 3))
(assert
 (< c0 18))
(assert
 (let (($x21 (< c0 6)))
 (let (($x49 (not v2)))
 (or $x49 $x21))))
(assert
 (let (($x21 (< c0 6)))
 (let (($x58 (not $x21)))
 (let (($x56 (not v3)))
 (or $x56 $x58)))))
(assert
 (let (($x22 (< c0 15)))
 (let (($x61 (not v5)))
 (or $x61 $x22))))
(assert
 (let (($x22 (< c0 15)))
 (let (($x69 (not $x22)))
 (let (($x67 (not v6)))
 (or $x67 $x69)))))
(assert
 (or v7 v8 v9))
(assert
 (let (($x73 (not v10)))
 (or $x73 v8)))
(assert
 (let (($x73 (not v10)))
 (or $x73 v2)))
(assert
 (let (($x78 (not v11)))
 (or $x78 v9)))
(assert
 (let (($x78 (not v11)))
 (or $x78 v5)))
(assert
 (let (($x83 (not v12)))
 (or $x83 v7)))
(assert
 (let (($x83 (not v12)))
 (or $x83 v3)))
(assert
 (let (($x88 (not v13)))
 (or $x88 v9)))
(assert
 (let (($x91 (not v14)))
 (or $x91 v7)))
(assert
 (let (($x91 (not v14)))
 (or $x91 v6)))
(assert
 (let (($x96 (not v7)))
 (or $x96 v10 v11)))
(assert
 (let (($x99 (not v8)))
 (or $x99 v12 v13)))
(assert
 (let (($x102 (not v9)))
 (or $x102 v14)))
(check-sat)
